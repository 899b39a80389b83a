import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connections/connectionCatalog.js';
import type { SavedConnection } from '../../src/db/connections/savedConnections.js';
import { runSluice } from '../helpers/cli.js';

/**
 * `sluice connections test ID` says whether the session uses TLS, against the machine's PostgreSQL and
 * MariaDB with TLS switched on by scripts/testTls.sh (as test/e2e/tls.test.ts): `TLS 1.x` when the URL
 * asks for it, `no TLS` when it does not. Without the test CA, or with a server refusing TLS, the suite
 * fails in CI and is skipped elsewhere, saying why.
 */
const DIR = process.env.SLUICE_TEST_TLS_DIR ?? '/var/lib/sluice-test-tls';
const CA = `${DIR}/ca.pem`;
const VERIFY = `sslmode=verify-full&sslrootcert=${CA}`;
/** mysql2 checks a certificate's names against a host name only, so MySQL's verify-full goes to localhost. */
const URLS = {
  postgres: { product: 'PostgreSQL', tls: `postgres://postgres@127.0.0.1:5432/test?${VERIFY}`, plain: 'postgres://postgres@127.0.0.1:5432/test' },
  mysql: { product: 'MariaDB', tls: `mysql://root@localhost:3306/test?${VERIFY}`, plain: 'mysql://root@127.0.0.1:3306/test' },
} as const;

async function tlsProblem(): Promise<string | undefined> {
  if (!existsSync(CA)) return `${CA} is missing (run scripts/testTls.sh)`;
  for (const engine of ['postgres', 'mysql'] as const) {
    const connection = { id: 'tls', name: 'tls', engine, url: URLS[engine].tls, externalAccess: 'readOnly', aiPolicy: 'always' } as SavedConnection;
    const db = openDatabase(connection);
    try {
      await db.read('SELECT 1', { maxRows: 1, timeoutMs: 10_000, signal: new AbortController().signal });
    } catch (error) {
      return `${engine} does not accept TLS (run scripts/testTls.sh): ${(error as Error).message}`;
    } finally {
      await db.close().catch(() => {});
    }
  }
  return undefined;
}

const problem = await tlsProblem();
if (problem && process.env.CI) throw new Error(`CI needs TLS on the local servers: ${problem}`);
if (problem) console.log(`skipping the connections-test TLS suite: ${problem}`);

const dir = mkdtempSync(join(tmpdir(), 'sluice-connections-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(problem !== undefined).each(['postgres', 'mysql'] as const)('`connections test` on %s', (engine) => {
  const { product, tls, plain } = URLS[engine];
  const dataDir = mkdtempSync(join(dir, `${engine}-`));
  const sluice = (...args: string[]) => runSluice([...args, '--data-dir', dataDir], { SLUICE_SECRETS: 'file' });

  it('says which TLS protocol the session uses when the URL asks for TLS', () => {
    expect(sluice('connections', 'add', '--name', 'secure', '--url', tls).stdout).toBe('added secure\n');
    const tested = sluice('connections', 'test', 'secure');
    expect(tested.stderr).toBe('');
    expect(tested.stdout).toMatch(new RegExp(`^secure: ${product} \\d+\\.\\d+(\\.\\d+)?, TLS 1\\.[23], \\d+ ms\\n$`));
  });

  it('says `no TLS` when it does not', () => {
    expect(sluice('connections', 'add', '--name', 'plain', '--url', plain).stdout).toBe('added plain\n');
    const tested = sluice('connections', 'test', 'plain');
    expect(tested.stderr).toBe('');
    expect(tested.stdout).toMatch(new RegExp(`^plain: ${product} \\d+\\.\\d+(\\.\\d+)?, no TLS, \\d+ ms\\n$`));
  });
});
