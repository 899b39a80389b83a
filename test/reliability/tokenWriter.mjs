/**
 * Child process of faults.test.ts: mints tokens into a token file as fast as it can, forever, until the
 * parent kills it with SIGKILL.
 *
 *   node tokenWriter.mjs <built tokenStore.js> <tokens.json>
 *
 * It uses the built TokenStore (dist/), the same code `sluice serve` and `sluice tokens create` run.
 * `mint` returns only after the whole file was written to a temporary file, fsynced and renamed over the
 * old one (writeFileAtomic), so a token is reported on stdout only once it is durable: one line
 * `<id> <plaintext>`, written synchronously (one write(2) of a few dozen bytes to a pipe, which is atomic)
 * before the next mint starts. The module path is an argument so that the type checker does not follow it
 * into dist/.
 */
import { writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [modulePath, storePath] = process.argv.slice(2);
if (!modulePath || !storePath) {
  process.stderr.write('usage: tokenWriter.mjs <tokenStore.js> <tokens.json>\n');
  process.exit(2);
}

const { TokenStore } = await import(pathToFileURL(modulePath).href);
// Opening throws on a torn or invalid file: the parent sees a non-signal exit and the message on stderr.
const store = TokenStore.open(storePath);
writeSync(1, `open ${store.list().length}\n`);

for (let n = 0; ; n++) {
  const { record, plaintext } = store.mint({
    name: `crash-${process.pid}-${n}`,
    level: 'readOnly',
    connections: 'all',
    expiresInDays: null,
    now: Date.now(),
  });
  writeSync(1, `${record.id} ${plaintext}\n`);
}
