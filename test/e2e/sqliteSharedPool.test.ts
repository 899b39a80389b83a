import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite from 'better-sqlite3';
import { SimulatedClock } from 'xstate';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionCatalog } from '../../src/db/connections/connectionCatalog.js';
import { type Database, valuesOf } from '../../src/db/database.js';
import { type SavedConnection, writeConfig } from '../../src/db/connections/savedConnections.js';
import { SqliteProcessPool } from '../../src/db/engines/sqlite/processPool.js';
import { sqlitePoolSettings, type SqlitePoolSettings } from '../../src/db/engines/sqlite/poolSettings.js';
import { SqliteDatabase } from '../../src/db/engines/sqlite/sqliteDatabase.js';
import { DATABASES } from '../../src/core/contract.js';
import { ErrorCode, ProtocolError } from '../../src/core/errors.js';
import { fromDriverError } from '../../src/capabilities/dbErrors.js';
import { busyQueryProcesses, fileOpenInQueryProcess, queryProcesses } from '../helpers/queryProcesses.js';
import { callTool, mintToken, startTestApp } from '../helpers/testApp.js';

/** One pool of query processes serves every SQLite connection (issue 22, item 1). */

const ENDLESS = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n';
const poll = { timeout: 5_000, interval: 25 };

let dir: string;
const files: string[] = [];
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'sluice-shared-pool-')));
  for (let i = 0; i < 5; i++) {
    const path = join(dir, `db${i}.sqlite`);
    const db = new BetterSqlite(path);
    db.exec(`CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (${i})`);
    db.close();
    files.push(path);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let pool: SqliteProcessPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
  expect(queryProcesses()).toEqual([]);
});

function openPool(settings: Partial<SqlitePoolSettings>, clock?: SimulatedClock): SqliteProcessPool {
  pool = new SqliteProcessPool({ ...sqlitePoolSettings(), ...settings }, clock);
  return pool;
}

const signal = () => new AbortController().signal;

async function valueOf(db: Database, sql = 'SELECT n FROM t', abort = signal()): Promise<unknown> {
  return valuesOf((await db.read(sql, { maxRows: 10, timeoutMs: 60_000, signal: abort })).rows)[0]?.[0];
}

describe('the shared SQLite query pool', () => {
  it('serves five connections on at most its two processes, each answering from its own file', async () => {
    const shared = openPool({ processes: 2 });
    const dbs = files.map((path) => new SqliteDatabase(path, { pool: shared }));
    expect(dbs.map((db) => db.sessions)).toEqual([2, 2, 2, 2, 2]);
    for (let round = 0; round < 3; round++) {
      expect(await Promise.all(dbs.map((db) => valueOf(db)))).toEqual([0, 1, 2, 3, 4]);
      expect(queryProcesses().length).toBeLessThanOrEqual(2);
    }
    expect(queryProcesses()).toHaveLength(2);
  });

  it('starts one process when warmed, before any statement, and that process takes the first one', async () => {
    const shared = openPool({ processes: 2 });
    expect(queryProcesses()).toEqual([]);
    shared.warm();
    const warm = queryProcesses();
    expect(warm).toHaveLength(1);
    expect(await valueOf(new SqliteDatabase(files[0]!, { pool: shared }))).toBe(0);
    expect(queryProcesses()).toEqual(warm);
  });

  it('a cancelled statement kills only its own process; another connection keeps answering on the other', async () => {
    const shared = openPool({ processes: 2 });
    const [a, b] = [new SqliteDatabase(files[0]!, { pool: shared }), new SqliteDatabase(files[1]!, { pool: shared })];
    const cancel = new AbortController();
    const endless = valueOf(a, ENDLESS, cancel.signal);
    await expect.poll(busyQueryProcesses, poll).toHaveLength(1);
    const [running] = busyQueryProcesses();
    expect(await valueOf(b)).toBe(1);
    const other = queryProcesses().find((pid) => pid !== running);
    expect(other).toBeGreaterThan(0);

    cancel.abort(new Error('cancelled by the test'));
    await expect(endless).rejects.toThrow('cancelled by the test');
    await expect.poll(queryProcesses, poll).not.toContain(running);
    expect(queryProcesses()).toContain(other);
    expect(await valueOf(b)).toBe(1);
    expect(await valueOf(a)).toBe(0);
  });

  it('a statement past its timeout (on the pool’s clock) kills its process with -33003; the other connection is untouched', async () => {
    const clock = new SimulatedClock();
    const shared = openPool({ processes: 2 }, clock);
    const [a, b] = [new SqliteDatabase(files[0]!, { pool: shared }), new SqliteDatabase(files[1]!, { pool: shared })];
    const endless = a.read(ENDLESS, { maxRows: 1, timeoutMs: 60_000, signal: signal() }).catch((error: unknown) => fromDriverError(error));
    await expect.poll(busyQueryProcesses, poll).toHaveLength(1);
    const [running] = busyQueryProcesses();
    expect(await valueOf(b)).toBe(1);

    clock.increment(60_000);
    const error = await endless;
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: ErrorCode.RequestTimeout, message: 'The statement ran past its 60 s timeout' });
    await expect.poll(queryProcesses, poll).not.toContain(running);
    expect(await valueOf(b)).toBe(1);
  });

  it('processes beyond the one kept warm go after a minute (on the pool’s clock) without work', async () => {
    const clock = new SimulatedClock();
    const shared = openPool({ processes: 2 }, clock);
    const [a, b] = [new SqliteDatabase(files[0]!, { pool: shared }), new SqliteDatabase(files[1]!, { pool: shared })];
    const slow = valueOf(a, 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) SELECT count(*) FROM n');
    await expect.poll(busyQueryProcesses, poll).toHaveLength(1);
    // The first process is busy: the second connection's statement starts a second one.
    expect(await valueOf(b)).toBe(1);
    expect(await slow).toBe(3_000_000);
    expect(queryProcesses()).toHaveLength(2);
    clock.increment(DATABASES.sqliteIdleProcessMs - 1);
    expect(queryProcesses()).toHaveLength(2);
    clock.increment(1);
    await expect.poll(queryProcesses, poll).toHaveLength(1);
    // The one kept serves both connections, and no more go.
    expect([await valueOf(a), await valueOf(b)]).toEqual([0, 1]);
    clock.increment(DATABASES.sqliteIdleProcessMs);
    expect(queryProcesses()).toHaveLength(1);
  });

  it('statements past the pool’s size wait for a process, and run once one is free', async () => {
    const shared = openPool({ processes: 1 });
    const [a, b] = [new SqliteDatabase(files[0]!, { pool: shared }), new SqliteDatabase(files[1]!, { pool: shared })];
    const cancel = new AbortController();
    const endless = valueOf(a, ENDLESS, cancel.signal).catch((error: unknown) => error);
    await expect.poll(busyQueryProcesses, poll).toHaveLength(1);
    const waiting = valueOf(b);
    cancel.abort(new Error('stop'));
    expect(await waiting).toBe(1);
    expect(await endless).toMatchObject({ message: 'stop' });
    expect(queryProcesses()).toHaveLength(1);
  });

  it('keeps at most filesPerProcess files open in a process, closing the least recently used', async () => {
    const shared = openPool({ processes: 1, filesPerProcess: 2 });
    const dbs = files.slice(0, 3).map((path) => new SqliteDatabase(path, { pool: shared }));
    for (const db of dbs) await valueOf(db);
    expect(files.slice(0, 3).map(fileOpenInQueryProcess)).toEqual([false, true, true]);
    expect(await valueOf(dbs[0]!)).toBe(0);
    expect(files.slice(0, 3).map(fileOpenInQueryProcess)).toEqual([true, false, true]);
  });

  it('replaces a process whose memory passed the threshold once it has answered', async () => {
    const shared = openPool({ processes: 2, recycleRssBytes: 1 });
    shared.warm();
    const [first] = queryProcesses();
    const db = new SqliteDatabase(files[0]!, { pool: shared });
    expect(await valueOf(db)).toBe(0);
    // The one that answered leaves; a fresh one is kept warm in its place.
    await expect.poll(queryProcesses, poll).toSatisfy((pids: number[]) => pids.length === 1 && pids[0] !== first);
    expect(await valueOf(db)).toBe(0);
  });

  it('a closed connection’s file is closed in every process, and the connection refuses statements', async () => {
    const shared = openPool({ processes: 2 });
    const [a, b] = [new SqliteDatabase(files[0]!, { pool: shared }), new SqliteDatabase(files[1]!, { pool: shared })];
    // Two statements at once on each file, so that both processes open both.
    for (let i = 0; i < 3; i++) await Promise.all([valueOf(a), valueOf(a), valueOf(b), valueOf(b)]);
    expect(queryProcesses()).toHaveLength(2);
    expect(fileOpenInQueryProcess(files[0]!)).toBe(true);
    await a.close();
    await expect.poll(() => fileOpenInQueryProcess(files[0]!), poll).toBe(false);
    expect(fileOpenInQueryProcess(files[1]!)).toBe(true);
    await expect(valueOf(a)).rejects.toMatchObject({ kind: 'not_connected', message: 'the connection was closed' });
    expect(await valueOf(b)).toBe(1);
  });

  it('a file stays open while another connection to the same path is open', async () => {
    const shared = openPool({ processes: 1 });
    const [a, twin] = [new SqliteDatabase(files[0]!, { pool: shared }), new SqliteDatabase(files[0]!, { pool: shared })];
    await valueOf(a);
    await a.close();
    expect(await valueOf(twin)).toBe(0);
    expect(fileOpenInQueryProcess(files[0]!)).toBe(true);
    await twin.close();
    await expect.poll(() => fileOpenInQueryProcess(files[0]!), poll).toBe(false);
  });
});

describe('the catalog and the application share one pool', () => {
  const sqliteConnection = (id: string, path: string): SavedConnection => ({
    id,
    name: id,
    engine: 'sqlite',
    path,
    externalAccess: 'readOnly',
    aiPolicy: 'always',
  });

  it('removing a connection closes its file in every query process; closing the catalog ends them all', async () => {
    const catalog = new ConnectionCatalog([sqliteConnection('a', files[0]!), sqliteConnection('b', files[1]!)]);
    try {
      const read = (id: string) => valueOf(catalog.database(catalog.get(id)!));
      for (let i = 0; i < 3; i++) await Promise.all([read('a'), read('a'), read('b')]);
      expect(fileOpenInQueryProcess(files[0]!)).toBe(true);
      await catalog.remove('a');
      await expect.poll(() => fileOpenInQueryProcess(files[0]!), poll).toBe(false);
      expect(await read('b')).toBe(1);
    } finally {
      await catalog.close();
    }
    expect(queryProcesses()).toEqual([]);
  });

  it('the application starts one warm process with the server, serves on it, and stops every process with it', async () => {
    const app = await startTestApp({ sqlitePool: { processes: 2 } });
    try {
      const warm = queryProcesses();
      expect(warm).toHaveLength(1);
      const res = await callTool(app, 'execute_query', { connection_id: 'demo', sql: 'SELECT 1' });
      expect(res.json.result.structuredContent.rows).toEqual([[1]]);
      expect(queryProcesses()).toEqual(warm);
    } finally {
      await app.dispose();
    }
    expect(queryProcesses()).toEqual([]);
  });

  it('a token’s share is of the whole pool: its long statements on two files leave another token a process', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-pool-share-'));
    const sqlite = (id: string, path: string): SavedConnection => ({ id, name: id, engine: 'sqlite', path, externalAccess: 'readOnly', aiPolicy: 'always' });
    writeConfig(dataDir, { connections: [sqlite('one', files[0]!), sqlite('two', files[1]!)] });
    const app = await startTestApp({ dataDir, auth: true, sqlitePool: { processes: 2 } });
    try {
      const hog = mintToken(app, 'hog', 'readOnly').headers;
      const other = mintToken(app, 'other', 'readOnly').headers;
      const hogging = ['one', 'two'].map((connection_id, i) =>
        callTool(app, 'execute_query', { connection_id, sql: ENDLESS, timeout_seconds: 300 }, { id: `hog-${i}`, headers: hog }),
      );
      await expect.poll(busyQueryProcesses, poll).toHaveLength(1);
      // Were the share per file, the hog would hold both processes and this would wait 300 s.
      const quick = await callTool(app, 'execute_query', { connection_id: 'two', sql: 'SELECT n FROM t' }, { headers: other });
      expect(quick.json.result.structuredContent.rows).toEqual([[1]]);
      expect(busyQueryProcesses()).toHaveLength(1);
      await app.dispose();
      for (const pending of hogging) expect((await pending).json.error.code).toBe(ErrorCode.ServerUnavailable);
    } finally {
      await app.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
