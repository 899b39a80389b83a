import { fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A SQLite query process never outlives its server or its own deadline (issue 16, finding 11): it
 * once kept running after the server was killed with SIGKILL, since only the parent enforced the
 * timeout. Its watchdog thread ends it while the statement is still inside SQLite.
 */

const QUERY_PROCESS = fileURLToPath(new URL('../../src/db/engines/sqlite/queryProcess.js', import.meta.url));
/** A statement that steps for minutes unless stopped. */
const ENDLESS = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('query process hygiene', () => {
  let dir: string;
  let file: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-hygiene-'));
    file = join(dir, 'db.sqlite');
    new Database(file).exec('CREATE TABLE t (a)').close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ends itself about a second past the statement’s deadline, though nobody kills it', async () => {
    const child = fork(QUERY_PROCESS, ['5000', '16'], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const replies: unknown[] = [];
    child.on('message', (reply) => replies.push(reply));
    const started = performance.now();
    child.send({ id: 1, path: file, mode: 'read', sql: ENDLESS, params: [], maxRows: 10, maxBytes: 1_000_000, rowsAs: 'values', timeoutMs: 300 });
    const [, signal] = (await new Promise((resolve) => child.once('exit', (...args) => resolve(args)))) as [number | null, string | null];
    const elapsed = performance.now() - started;
    expect(signal).toBe('SIGKILL');
    expect(replies).toEqual([]);
    expect(elapsed).toBeGreaterThan(1_200);
    expect(elapsed).toBeLessThan(4_000);
  }, 10_000);

  it('ends itself when its server is killed with SIGKILL mid-statement', async () => {
    // A stand-in server: forks the query process, starts the endless statement, prints the child's pid.
    const server = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { fork } from 'node:child_process';
         const child = fork(${JSON.stringify(QUERY_PROCESS)}, ['5000', '16'], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [] });
         child.send({ id: 1, path: ${JSON.stringify(file)}, mode: 'read', sql: ${JSON.stringify(ENDLESS)}, params: [], maxRows: 10, maxBytes: 1000000, rowsAs: 'values', timeoutMs: 600000 });
         setTimeout(() => console.log(child.pid), 300);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const pid = Number(await new Promise<string>((resolve) => server.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()))));
    expect(alive(pid)).toBe(true);
    server.kill('SIGKILL');
    const killedAt = performance.now();
    await expect.poll(() => alive(pid), { timeout: 3_000, interval: 50 }).toBe(false);
    expect(performance.now() - killedAt).toBeLessThan(3_000);
  }, 10_000);
});
