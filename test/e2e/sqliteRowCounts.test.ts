import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DATABASES } from '../../src/core/contract.js';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import { SqliteDatabase } from '../../src/db/engines/sqlite/sqliteDatabase.js';
import { sqliteTableStatistics } from '../../src/db/engines/sqlite/sqliteStatistics.js';
import { expectModernSuccess } from '../helpers/rpcAssertions.js';
import { callTool, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * table_statistics' row figure on SQLite (issue 29, item 7): counted exactly while that fits the time
 * budget (`DATABASES.sqliteExactCountBudgetMs` for a whole call), which the query process enforces by
 * stopping the count that runs past it; a table not counted gets sqlite_stat1's estimate, marked
 * `row_count_source: "sqlite_stat1"`, or null when ANALYZE never ran. Before, a file never analyzed had
 * no row figure at all.
 */

const dir = mkdtempSync(join(tmpdir(), 'sluice-row-counts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A SQLite file made by `sql`, never analyzed unless `sql` says so. */
function sqliteFile(name: string, sql: string): string {
  const path = join(dir, name);
  const db = new Database(path);
  db.exec(sql);
  db.close();
  return path;
}

/** `n` rows of one integer, built inside SQLite. */
const rowsOf = (table: string, n: number) =>
  `CREATE TABLE ${table} (i INTEGER PRIMARY KEY);
   WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n}) INSERT INTO ${table} SELECT i FROM n;`;

const signal = new AbortController().signal;
const request = { schema: 'main', table: undefined, limit: 500 };
const rowFigures = (tables: Array<{ table: string; estimated_rows: number | null; row_count_source: string | null }>) =>
  Object.fromEntries(tables.map((t) => [t.table, [t.estimated_rows, t.row_count_source]]));

describe('table_statistics on a SQLite file never analyzed', () => {
  let app: TestApp;
  beforeAll(async () => {
    const path = sqliteFile('plain.db', `${rowsOf('events', 1_234)} CREATE TABLE empty (id INTEGER PRIMARY KEY, note TEXT); CREATE TABLE "odd ""name""" (v);
      INSERT INTO "odd ""name""" VALUES (1), (2), (3);`);
    const dataDir = mkdtempSync(join(dir, 'data-'));
    writeConfig(dataDir, { connections: [{ id: 'plain', name: 'Plain', engine: 'sqlite', path, externalAccess: 'readOnly', aiPolicy: 'askEachTime' }] });
    app = await startTestApp({ dataDir });
  });
  afterAll(() => app?.dispose());

  it('gives every table its exact count, marked as one', async () => {
    const result = expectModernSuccess(await callTool(app, 'table_statistics', { connection_id: 'plain' }));
    expect(result.isError).toBe(false);
    expect(result.structuredContent.notes).toEqual([]);
    expect(rowFigures(result.structuredContent.tables)).toEqual({ empty: [0, 'count'], events: [1_234, 'count'], 'odd "name"': [3, 'count'] });
  });
});

describe('the count budget', () => {
  // 3,000,000 rows: no machine steps through them, calling the budget's check on each, in 40 ms.
  const BIG = 3_000_000;
  const BUDGET_MS = 40;
  let analyzed: SqliteDatabase;
  let unanalyzed: SqliteDatabase;
  beforeAll(() => {
    const tables = `${rowsOf('big', BIG)} ${rowsOf('small', 3)} ${rowsOf('tiny', 1)}`;
    analyzed = new SqliteDatabase(sqliteFile('analyzed.db', `${tables} ANALYZE;`));
    unanalyzed = new SqliteDatabase(sqliteFile('unanalyzed.db', tables));
  });
  afterAll(async () => {
    await analyzed?.close();
    await unanalyzed?.close();
  });

  it('stops the count that runs past it in the query process: that table gets sqlite_stat1’s estimate, the smaller ones their counts', async () => {
    const { tables, notes } = await sqliteTableStatistics(analyzed, request, signal, BUDGET_MS);
    expect(rowFigures(tables)).toEqual({ big: [BIG, 'sqlite_stat1'], small: [3, 'count'], tiny: [1, 'count'] });
    expect(notes).toEqual([`1 table(s) not counted within the ${BUDGET_MS} ms budget: their estimated_rows is sqlite_stat1's estimate`]);
    // The query process that stopped the count answers the next statement.
    expect(await analyzed.countRowsWithin('main', ['small'], BUDGET_MS, signal)).toEqual([3]);
  });

  it('leaves a table it could not count, and that ANALYZE never counted, without a row figure, and says so', async () => {
    const { tables, notes } = await sqliteTableStatistics(unanalyzed, request, signal, BUDGET_MS);
    expect(rowFigures(tables)).toEqual({ big: [null, null], small: [3, 'count'], tiny: [1, 'count'] });
    expect(notes).toEqual([`1 table(s) not counted within the ${BUDGET_MS} ms budget and never analyzed: their estimated_rows is null`]);
  });

  it('counts within it, given time, exactly', async () => {
    expect(await unanalyzed.countRowsWithin('main', ['tiny', 'big'], 60_000, signal)).toEqual([1, BIG]);
  });

  it('is DATABASES.sqliteExactCountBudgetMs, 100 ms, for a whole table_statistics call', async () => {
    expect(DATABASES.sqliteExactCountBudgetMs).toBe(100);
    const counting = vi.spyOn(unanalyzed, 'countRowsWithin');
    await sqliteTableStatistics(unanalyzed, request, signal);
    // The smallest tables first (by dbstat's bytes; equals by name), so that the budget counts as many as it can.
    expect(counting.mock.calls.map((call) => call.slice(0, 3))).toEqual([['main', ['small', 'tiny', 'big'], DATABASES.sqliteExactCountBudgetMs]]);
  });
});
