import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callControl } from '../../src/cli/controlClient.js';
import type { UndoAnswer } from '../../src/control/undoCommand.js';
import { UNDO } from '../../src/core/contract.js';
import type { Engine } from '../../src/db/database.js';
import { type ApprovedWrite, approvedWrite } from '../helpers/approvedWrite.js';
import { availableEngines, type FixtureApp, startFixtureApp } from '../helpers/engines.js';
import { worstLoopDelay } from '../helpers/loopDelay.js';
import { type Minted, mintToken } from '../helpers/testApp.js';

/**
 * Undo at its bounds (UNDO in contract.js), on every engine, through the real path: a DELETE of 10,000
 * rows of 5,000 characters each (about 47.8 MiB of kept rows, under the 50 MiB bound) approved over MCP
 * keeps its rows, and `activity.undo` puts them back; neither holds the event loop for 50 ms (the
 * project's rule), measured as the main thread's CPU time between two turns; so does an UPDATE of half of
 * them (its rows kept before and after, 47.8 MiB again, read again by key). Then the bounds: an UPDATE
 * of the same rows keeps both sides of each row (about 95 MiB), past the bytes bound, so nothing is kept
 * and the write stands; and a DELETE of 10,001 rows is said beforehand not to be undoable.
 */

const engines = await availableEngines();

const ROWS = UNDO.maxRows;
const WIDTH = 5_000;

const DIGITS = `(${Array.from({ length: 10 }, (_, d) => `SELECT ${d} AS d`).join(' UNION ALL ')})`;

/** The table of wide rows, filled by the engine itself (a statement of 50 MB would be slow to send). */
const SETUP: Record<Engine, string[]> = {
  sqlite: [
    'CREATE TABLE wide (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, body TEXT NOT NULL)',
    `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${ROWS}) INSERT INTO wide SELECT i, i, substr(replace(hex(zeroblob(${WIDTH})), '00', 'ab' || i), 1, ${WIDTH}) FROM s`,
  ],
  postgres: [
    'CREATE TABLE wide (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, body TEXT NOT NULL)',
    `INSERT INTO wide SELECT i, i, left(repeat('ab' || i, ${WIDTH}), ${WIDTH}) FROM generate_series(1, ${ROWS}) AS i`,
  ],
  mysql: [
    'CREATE TABLE wide (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, body MEDIUMTEXT NOT NULL)',
    // Four tables of the ten digits make the numbers (MySQL's recursive CTEs stop at 1,000 by default).
    `INSERT INTO wide SELECT i, i, LEFT(REPEAT(CONCAT('ab', i), ${WIDTH}), ${WIDTH}) FROM (SELECT a.d * 1000 + b.d * 100 + c.d * 10 + e.d + 1 AS i FROM ${DIGITS} a, ${DIGITS} b, ${DIGITS} c, ${DIGITS} e) s WHERE i <= ${ROWS}`,
  ],
  duckdb: [
    'CREATE TABLE wide (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, body VARCHAR NOT NULL)',
    `INSERT INTO wide SELECT i, i, left(repeat('ab' || i, ${WIDTH}), ${WIDTH}) FROM range(1, ${ROWS + 1}) t(i)`,
  ],
};

/** The whole table as the engine renders it, to see it put back byte for byte. */
const DIGEST: Record<Engine, string> = {
  sqlite: "SELECT count(*), group_concat(r, '|') FROM (SELECT id || ',' || n || ',' || body AS r FROM wide ORDER BY id)",
  postgres: "SELECT count(*), md5(string_agg(w::text, '|' ORDER BY id)) FROM wide w",
  mysql: 'CHECKSUM TABLE wide EXTENDED',
  duckdb: "SELECT count(*), md5(string_agg(CAST(w AS VARCHAR), '|' ORDER BY id)) FROM wide w",
};

describe.each(engines)('undo at its bounds on %s', (engine) => {
  let served: FixtureApp;
  let writer: Minted;
  const digest = async () => JSON.stringify(await served.fixture.query(DIGEST[engine]));

  beforeAll(async () => {
    served = await startFixtureApp(engine, { auth: true });
    writer = mintToken(served.app, 'Undo writer', 'readWrite');
    for (const sql of SETUP[engine]) await served.fixture.query(sql);
  }, 60_000);
  afterAll(() => served?.dispose());

  const approved = (sql: string) => approvedWrite(served.app, writer.headers, sql, 30_000);

  const undo = (seq: number) => callControl(served.app.dataDir, 'activity.undo', { seq, force: false }) as Promise<UndoAnswer>;
  const count = async () => Number((await served.fixture.query('SELECT count(*) FROM wide'))[0]![0]);

  it(`keeps a DELETE of ${ROWS} rows of ${WIDTH} characters and takes it back, the loop never held 50 ms`, async () => {
    const original = await digest();
    let deleted: ApprovedWrite | undefined;
    const keeping = await worstLoopDelay(async () => (deleted = await approved('DELETE FROM wide WHERE id > 0')));
    expect(deleted!.dialog.undo).toEqual({ possible: true });
    expect(deleted!.detail).toEqual({ undo: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(await count()).toBe(0);

    let answer: UndoAnswer | undefined;
    const undoing = await worstLoopDelay(async () => (answer = await undo(deleted!.row.seq)));
    expect(answer).toEqual({ ok: true, rowsAffected: ROWS, undoSeq: expect.any(Number) });
    expect(await digest()).toBe(original);
    console.log(`${engine}: worst hold keeping ${keeping.toFixed(1)} ms, undoing ${undoing.toFixed(1)} ms`);
    expect(keeping).toBeLessThan(50);
    expect(undoing).toBeLessThan(50);
  }, 120_000);

  it(`keeps an UPDATE of ${ROWS / 2} of those rows (both sides kept, 47.8 MiB) and takes it back, the loop never held 50 ms`, async () => {
    const original = await digest();
    let updated: ApprovedWrite | undefined;
    const keeping = await worstLoopDelay(async () => (updated = await approved(`UPDATE wide SET n = n + 1 WHERE id <= ${ROWS / 2}`)));
    expect(updated!.detail).toEqual({ undo: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(await digest()).not.toBe(original);

    let answer: UndoAnswer | undefined;
    const started = performance.now();
    const undoing = await worstLoopDelay(async () => (answer = await undo(updated!.row.seq)));
    const took = performance.now() - started;
    expect(answer).toEqual({ ok: true, rowsAffected: ROWS / 2, undoSeq: expect.any(Number) });
    expect(await digest()).toBe(original);
    console.log(`${engine}: worst hold keeping an UPDATE ${keeping.toFixed(1)} ms, undoing it ${undoing.toFixed(1)} ms (the undo took ${(took / 1000).toFixed(1)} s)`);
    expect(keeping).toBeLessThan(50);
    expect(undoing).toBeLessThan(50);
  }, 120_000);

  it('keeps nothing of a write past the bytes bound: the write stands and its activity row says why', async () => {
    let updated: ApprovedWrite | undefined;
    const held = await worstLoopDelay(async () => (updated = await approved('UPDATE wide SET n = n + 1 WHERE id > 0')));
    // Not known before the write: the dialog cannot say it.
    expect(updated!.dialog.undo).toEqual({ possible: true });
    expect(updated!.detail).toEqual({ undo_unavailable: `it changes more than ${UNDO.maxRows} rows or ${UNDO.maxBytes} bytes of them` });
    expect(await served.fixture.query('SELECT count(*) FROM wide WHERE n = id + 1')).toEqual([[engine === 'postgres' ? String(ROWS) : ROWS]]);
    console.log(`${engine}: worst hold on an UPDATE past the bytes bound ${held.toFixed(1)} ms`);
    expect(held).toBeLessThan(50);
  }, 120_000);

  it(`says before approval that a DELETE of ${ROWS + 1} rows cannot be undone, and keeps nothing`, async () => {
    await served.fixture.query(`INSERT INTO wide (id, n, body) VALUES (${ROWS + 1}, 0, 'one more')`);
    const { dialog, detail } = await approved('DELETE FROM wide WHERE id > 0');
    expect(dialog.undo).toEqual({ possible: false, why: `it changes ${ROWS + 1} rows, more than the ${ROWS} rows an undo keeps` });
    // The write decides again as it runs, without the count: its read of the rows stops at the one past the bound.
    expect(detail).toEqual({ undo_unavailable: `it changes more than ${UNDO.maxRows} rows or ${UNDO.maxBytes} bytes of them` });
    expect(await count()).toBe(0);
  }, 120_000);
});
