import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import { availableEngines, createFixture, type EngineFixture } from '../helpers/engines.js';
import type { Engine } from '../../src/db/database.js';
import { expectRpcError, expectToolSuccess } from '../helpers/rpcAssertions.js';
import { callTool, mintToken, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * Reads that were refused as writes (issue 29, item 5, from peers' suites), run with a readOnly token on
 * every engine: data-changing keywords used as names (a CTE, an alias, a column, a derived table), a
 * PostgreSQL EXPLAIN whose ANALYZE is off, SQLite pragmas that only ask. Each gives its rows. The writes
 * they resemble are still refused (`-33007`) and the canary table is unchanged; test/e2e/readOnlyGuarantee
 * runs the rest of the bypass corpus.
 */

const engines = await availableEngines();

type Read = [sql: string, rows: unknown[][]];

/** Names every engine accepts, and what each accepts beyond them (MariaDB reserves replace, update, delete and insert). */
const EVERYWHERE: Read[] = [
  ['SELECT * FROM (SELECT 1 AS a) merge', [[1]]],
  ['SELECT merge.a FROM (SELECT 1 AS a) AS merge', [[1]]],
  ['SELECT max(merge) FROM (SELECT 1 AS merge) x', [[1]]],
];
const POSTGRES_LIKE: Read[] = [
  ['WITH replace AS (SELECT 1 AS a) SELECT * FROM replace', [[1]]],
  ['WITH update AS (SELECT 1 AS delete) SELECT delete FROM update', [[1]]],
  ['SELECT 1 AS update, 2 AS delete, 3 AS insert, 4 AS merge, 5 AS replace, 6 AS copy, 7 AS set', [[1, 2, 3, 4, 5, 6, 7]]],
];
const READS: Record<Engine, Read[]> = {
  sqlite: [
    ...EVERYWHERE,
    ['WITH replace AS (SELECT 1 AS a) SELECT * FROM replace', [[1]]],
    ['WITH merge AS (SELECT 1 AS replace) SELECT replace FROM merge', [[1]]],
    ['PRAGMA journal_mode', [['delete']]],
    ['PRAGMA main.journal_mode', [['delete']]],
    ['PRAGMA application_id', [[0]]],
    ['PRAGMA main.index_list(books)', [[0, 'books_author_idx', 0, 'c', 0]]],
  ],
  postgres: [
    ...EVERYWHERE,
    ...POSTGRES_LIKE,
    ['WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) CYCLE n SET seen USING path SELECT n FROM r', [[1], [2], [3]]],
  ],
  mysql: [...EVERYWHERE, ['WITH merge AS (SELECT 1 AS a) SELECT a FROM merge', [[1]]]],
  duckdb: [...EVERYWHERE, ...POSTGRES_LIKE],
};

/** Plans that were refused as destructive, and the writes that look like them. */
const POSTGRES_PLANS = ['EXPLAIN (ANALYZE false) DELETE FROM sluice_canary', "EXPLAIN (ANALYZE off, COSTS off) UPDATE sluice_canary SET note = 'x'", 'EXPLAIN (ANALYZE 0, FORMAT JSON) DELETE FROM sluice_canary WHERE id = 1'];
const STILL_WRITES: Record<Engine, string[]> = {
  sqlite: ['PRAGMA journal_mode = WAL', 'PRAGMA main.journal_mode = MEMORY', "WITH replace AS (SELECT 1 AS a) REPLACE INTO sluice_canary (id, note) SELECT a, 'x' FROM replace"],
  postgres: [
    'EXPLAIN (ANALYZE true) DELETE FROM sluice_canary WHERE id = 1',
    'EXPLAIN (COSTS false, ANALYZE) DELETE FROM sluice_canary WHERE id = 1',
    "WITH update AS (SELECT 1 AS id) UPDATE sluice_canary SET note = 'x' WHERE id IN (SELECT id FROM update)",
  ],
  mysql: ["UPDATE sluice_canary SET note = 'x' WHERE id IN (SELECT a FROM (SELECT 1 AS a) merge)"],
  // DuckDB runs the statement whatever value its ANALYZE option is given.
  duckdb: ['EXPLAIN (ANALYZE false) DELETE FROM sluice_canary WHERE id = 1', "WITH update AS (SELECT 1 AS id) UPDATE sluice_canary SET note = 'x' WHERE id = 1"],
};

describe.each(engines)('reads with a readOnly token on %s', (engine) => {
  let fixture: EngineFixture;
  let app: TestApp;
  let dataDir: string;
  let readOnly: Record<string, string>;
  const execute = (sql: string) => callTool(app, 'execute_query', { connection_id: 'db', sql }, { headers: readOnly });
  const canary = () => fixture.query('SELECT id, note FROM sluice_canary ORDER BY id');
  const CANARY = [
    [1, 'one'],
    [2, 'two'],
    [3, 'three'],
  ];

  beforeAll(async () => {
    fixture = await createFixture(engine);
    dataDir = mkdtempSync(join(tmpdir(), `sluice-reads-${engine}-`));
    writeConfig(dataDir, { connections: [fixture.connection] });
    app = await startTestApp({ dataDir, auth: true });
    readOnly = mintToken(app, `${engine} readOnly`, 'readOnly').headers;
  });
  afterAll(async () => {
    await app?.dispose();
    await fixture?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it.each(READS[engine])('%s runs as a read', async (sql, rows) => {
    const result = expectToolSuccess(await execute(sql));
    expect({ kind: result.statement_kind, rows: result.rows }).toEqual({ kind: 'read', rows });
  });

  if (engine === 'postgres') {
    it.each(POSTGRES_PLANS)('%s only plans: a plan comes back and no row changes', async (sql) => {
      const result = expectToolSuccess(await execute(sql));
      expect(result.statement_kind).toBe('read');
      expect(JSON.stringify(result.rows)).not.toMatch(/actual time|Actual Total Time/);
      expect(result.rows.length).toBeGreaterThan(0);
      expect(await canary()).toEqual(CANARY);
    });
  }

  it.each(STILL_WRITES[engine])('%s is still refused as a write (-33007) and changes nothing', async (sql) => {
    const error = expectRpcError(await execute(sql), 403, -33007, 1);
    expect(error.data).toEqual({ requiredScopes: ['tools:read', 'tools:write'] });
    expect(await canary()).toEqual(CANARY);
  });

  if (engine === 'sqlite') {
    it('the journal mode is what it was', async () => {
      expect(await fixture.query('PRAGMA journal_mode')).toEqual([['delete']]);
    });
  }
});
