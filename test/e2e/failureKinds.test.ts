import { openSync, writeSync, closeSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectToolError, expectToolSuccess } from '../helpers/rpcAssertions.js';
import type { Engine } from '../../src/db/database.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, type EngineFixture, startFixtureApp } from '../helpers/engines.js';
import { callTool, type TestApp } from '../helpers/testApp.js';

/**
 * `not_connected` means a session could not be opened or was lost, and nothing else (issue 27, finding
 * 5): a statement the database refused is `query_failed`, however it was refused. Each case is a real
 * statement that triggers its row of the table in src/db/failureKinds.ts.
 */

const engines = await availableEngines();

describe.each(engines)('driver errors by their code on %s', (engine: Engine) => {
  skipListed('failureKinds', engine);
  let fixture: EngineFixture;
  let app: TestApp;
  let dispose: () => Promise<void>;
  const run = (sql: string, params?: unknown[]) => callTool(app, 'execute_query', { connection_id: 'db', sql, ...(params ? { params } : {}) });

  beforeAll(async () => {
    ({ fixture, app, dispose } = await startFixtureApp(engine));
  });
  afterAll(async () => {
    await dispose?.();
  });

  it.runIf(engine === 'postgres')('08P01, a Bind with fewer values than the statement has: query_failed, and the pool still answers', async () => {
    const text = expectToolError(await run('SELECT $1::int AS n'), 'query_failed');
    expect(text).toMatch(/^query_failed: bind message supplies 0 parameters, but prepared statement "" requires 1$/);
    expect(expectToolSuccess(await run('SELECT 1 AS n')).rows).toEqual([[1]]);
  });

  it.runIf(engine === 'postgres')('57P01, a session the server ended under a statement: not_connected', async () => {
    const sleeping = run('SELECT pg_sleep(20)');
    const sleeper = "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'sluice' AND state = 'active'";
    let pid: unknown;
    await expect.poll(async () => (pid = (await fixture.query(sleeper))[0]?.[0]), { timeout: 5_000, interval: 50 }).toBeDefined();
    await fixture.query('SELECT pg_terminate_backend($1)', [pid]);
    const text = expectToolError(await sleeping, 'not_connected');
    expect(text).toMatch(/^not_connected: the connection to the PostgreSQL server was lost: terminating connection due to administrator command/);
    expect(expectToolSuccess(await run('SELECT 1 AS n')).rows).toEqual([[1]]);
  });

  it.runIf(engine === 'mysql')('1064, a statement the server cannot parse: query_failed; 1927, a killed session: not_connected', async () => {
    expectToolError(await run('SELECT FROM WHERE'), 'query_failed');
    const sleeping = run('SELECT SLEEP(20)');
    let id: unknown;
    await expect
      .poll(async () => (id = (await fixture.query("SELECT id FROM information_schema.processlist WHERE info = 'SELECT SLEEP(20)'"))[0]?.[0]), { timeout: 5_000, interval: 50 })
      .toBeDefined();
    await fixture.query(`KILL CONNECTION ${Number(id)}`);
    expect(expectToolError(await sleeping, 'not_connected')).toMatch(/^not_connected: the connection to the MySQL server was lost: /);
  });

  it.runIf(engine === 'sqlite')('SQLITE_CORRUPT, a malformed file: query_failed, not a lost connection', async () => {
    await fixture.query('CREATE TABLE filler (t TEXT)');
    await fixture.query("INSERT INTO filler SELECT hex(randomblob(2000)) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) SELECT i FROM n)");
    const [[pageSize]] = (await fixture.query('PRAGMA page_size')) as [[number]];
    const [[rootPage]] = (await fixture.query("SELECT rootpage FROM sqlite_schema WHERE name = 'filler'")) as [[number]];
    const file = openSync((fixture.connection as { path: string }).path, 'r+');
    writeSync(file, Buffer.alloc(pageSize, 0xff), 0, pageSize, (rootPage - 1) * pageSize);
    closeSync(file);
    expect(expectToolError(await run('SELECT count(*) FROM filler'), 'query_failed')).toMatch(/^query_failed: database disk image is malformed/);
  });

  it.runIf(engine === 'duckdb')('a Parser Error and a Conversion Error: query_failed, the type kept as the code', async () => {
    expect(expectToolError(await run('SELECT FROM WHERE'), 'query_failed')).toMatch(/^query_failed: Parser Error: syntax error at or near "WHERE"/);
    expect(expectToolError(await run('SELECT $1::INTEGER AS n', ['x']), 'query_failed')).toMatch(/^query_failed: Conversion Error: Could not convert string 'x' to INT32/);
    expect(app.activity.list({ category: 'tool' }).slice(0, 2).map((row) => row.error)).toEqual(['query_failed (Conversion)', 'query_failed (Parser)']);
    expect(expectToolSuccess(await run('SELECT 1 AS n')).rows).toEqual([[1]]);
  });
});
