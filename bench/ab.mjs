// `npm run bench:ab -- REF`: this tree's Sluice (B) against the one built from git REF (A), side by side in
// one run, on the hot paths a refactor must not slow: tools/call list_connections and an execute_query on
// the demo database. Each server runs in a process of its own; rounds go A B B A, so that a busy machine's
// stalls fall on both alike, and A's own rounds, compared with each other (A/A), are the noise that B/A is
// read against. REF is checked out and built in a temporary worktree, removed afterwards.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { headersFor, rpc } from './lib/mcp.mjs';
import { startServer } from './lib/servers.mjs';
import { QUICK, SETTINGS } from './lib/settings.mjs';
import { median, sleep } from './lib/stats.mjs';

const ref = process.argv[2];
if (!ref) {
  console.error('usage: npm run bench:ab -- REF   (a commit, branch or tag to compare this tree with)');
  process.exit(2);
}
const ROUNDS = QUICK ? 1 : 4;
const SECONDS = Math.max(2, Math.round(SETTINGS.seconds / 2));
const here = fileURLToPath(new URL('..', import.meta.url));
// Both sides keep their secrets in files: the OS store would only add its own noise (and its warning).
const env = { ...process.env, SLUICE_SECRETS: 'file' };
const git = (...args) => execFileSync('git', args, { cwd: here, encoding: 'utf8' }).trim();

/** REF built in a worktree of its own (this tree's node_modules linked in); its root. */
function buildRef() {
  const root = mkdtempSync(join(tmpdir(), 'sluice-bench-ab-'));
  git('worktree', 'add', '--detach', '--quiet', root, git('rev-parse', '--verify', `${ref}^{commit}`));
  symlinkSync(join(here, 'node_modules'), join(root, 'node_modules'));
  execFileSync(process.execPath, [join(here, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  return root;
}

/** A server of the tree at `root` with a data directory of its own and a read-only token minted by that tree's CLI. */
async function serve(root) {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-bench-ab-data-'));
  const cli = join(root, 'dist/src/cli/main.js');
  const token = execFileSync(process.execPath, [cli, 'tokens', 'create', '--name', 'bench ab', '--level', 'readOnly', '--data-dir', dataDir], { encoding: 'utf8', env }).trim();
  const server = await startServer(join(root, 'bench/servers/sluice.mjs'), [dataDir], [], env);
  return { ...server, token, dataDir };
}

const WORKLOADS = {
  list_connections: {},
  execute_query: { connection_id: 'demo', sql: 'SELECT id, name FROM customers ORDER BY id LIMIT 20' },
};

async function requestsPerSecond(server, tool, duration) {
  const result = await autocannon({
    url: `http://127.0.0.1:${server.port}/mcp`,
    method: 'POST',
    headers: headersFor('tools/call', tool, server.token),
    body: rpc(1, 'tools/call', { name: tool, arguments: WORKLOADS[tool] }),
    connections: 64,
    duration,
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) throw new Error(`${tool}: ${failures} failed requests`);
  // Let the connections close: a Sluice server holds at most 64.
  await sleep(500);
  return result.requests.average;
}

const root = buildRef();
const servers = {};
try {
  servers.a = await serve(root);
  servers.b = await serve(here);
  const lines = [`A = ${ref} (${git('rev-parse', '--short', `${ref}^{commit}`)}), B = this tree; ${ROUNDS} rounds of A B B A, ${SECONDS} s each, 64 connections`];
  for (const tool of Object.keys(WORKLOADS)) {
    for (const side of ['a', 'b']) await requestsPerSecond(servers[side], tool, 2); // warm-up
    const runs = { a: [], b: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of ['a', 'b', 'b', 'a']) runs[side].push(await requestsPerSecond(servers[side], tool, SECONDS));
    }
    const a = median(runs.a);
    const b = median(runs.b);
    // A/A: the spread of A's own runs around their median, the noise B/A is read against.
    const noise = Math.max(...runs.a.map((run) => Math.abs(run / a - 1)));
    lines.push(`${tool}: A ${a.toFixed(0)} req/s, B ${b.toFixed(0)} req/s, B/A ${(b / a).toFixed(3)}; A/A spread ±${(100 * noise).toFixed(1)}% → ${Math.abs(b / a - 1) <= noise ? 'within noise' : b > a ? 'B faster' : 'B slower'}`);
  }
  console.log(lines.join('\n'));
} finally {
  for (const server of Object.values(servers)) {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
  git('worktree', 'remove', '--force', root);
}
