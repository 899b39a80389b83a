import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, RESULTS } from '../../src/core/contract.js';
import { ConnectionCatalog } from '../../src/db/connections/connectionCatalog.js';
import { expectRpcError } from '../helpers/rpcAssertions.js';
import { callTool, mcp, mintToken, type RawResponse, sendCancelled, type TestApp } from '../helpers/testApp.js';
import { availableServers, busyBesideHeld, createFixture, type EngineFixture, heldSessions, runningSleeps, type ServerEngine, startFixtureApp } from '../helpers/engines.js';

/**
 * Rows are streamed from the database servers and reading stops at `max_rows` + 1 or at the byte
 * budget (issue 22): a read over a hundred million generated rows answers with its first rows, as it
 * could not if the rows were read whole, and the statement is ended on the server. Afterwards the same
 * pool serves more early-stopped reads than it has sessions, then ordinary ones, and a statement
 * cancelled while its rows stream still ends with -33002. A write returning rows runs to its end, and
 * keeps only the rows it may show.
 */

const CANCELLED = -33002;

const servers = await availableServers();

/** MariaDB's sequence engine streams its rows as it makes them (a recursive CTE would be materialised whole first). */
const MYSQL_SERIES = '(SELECT seq AS n FROM seq_1_to_100000000) series';

/** One hundred million rows: `n` from 1, and a value of 1,000 characters beside it. A set-returning function in the select list streams. */
const HUGE_SQL: Record<ServerEngine, (value: string) => string> = {
  postgres: (value) => `SELECT n, ${value} FROM (SELECT generate_series(1, 100000000) AS n) series`,
  mysql: (value) => `SELECT n, ${value} FROM ${MYSQL_SERIES}`,
};
/** The same rows, `n` alone, in the order they are generated. */
const ORDERED: Record<ServerEngine, string> = {
  postgres: 'SELECT generate_series(1, 100000000) AS n',
  mysql: `SELECT n FROM ${MYSQL_SERIES}`,
};
const WIDE_VALUE: Record<ServerEngine, string> = { postgres: "repeat('x', 1000)", mysql: "REPEAT('x', 1000)" };
/** 150 rows at once, then one per 10 ms: a cancel lands while the rows stream (on PostgreSQL, in the second FETCH). */
const SLOW_ROWS: Record<ServerEngine, string> = {
  postgres: 'SELECT n, CASE WHEN n > 150 THEN pg_sleep(0.01) END FROM (SELECT generate_series(1, 100000000) AS n) series',
  mysql: `SELECT n, IF(n > 150, SLEEP(0.01), 0) FROM ${MYSQL_SERIES}`,
};
/** The rows and their account, from a successful tool result (its text rendering is another suite's concern). */
function structured(res: RawResponse, id: number): Record<string, any> {
  expect({ status: res.status, id: res.json?.id, error: res.json?.error, isError: res.json?.result?.isError }).toEqual({
    status: 200,
    id,
    error: undefined,
    isError: false,
  });
  return res.json.result.structuredContent;
}

if (servers.length === 0) describe('streamed results', () => it.skip('needs a PostgreSQL or MariaDB server', () => {}));

describe.each(servers)('results are streamed on %s', (engine) => {
  let fixture: EngineFixture;
  let app: TestApp;
  let dispose: () => Promise<void>;
  let headers: Record<string, string>;
  let nextId = 1;

  let baseline: number;
  // Running a statement: a read held open behind its next_cursor is idle on purpose between pages, and
  // the server shows exactly as many such sessions as Sluice holds reads (its heldRead actors).
  const busy = async () => {
    expect(await heldSessions(fixture)).toBe(app.liveActors() - baseline);
    return busyBesideHeld(fixture);
  };
  const query = async (args: Record<string, unknown>) => {
    const id = nextId++;
    return structured(await callTool(app, 'execute_query', { connection_id: 'db', ...args }, { headers, id }), id);
  };

  beforeAll(async () => {
    ({ fixture, app, dispose } = await startFixtureApp(engine, { auth: true }));
    headers = mintToken(app, `${engine} streaming`).headers;
    baseline = app.liveActors();
  });
  afterAll(async () => {
    await dispose?.();
  });

  it('max_rows: 5 over a hundred million rows: five rows, truncated by max_rows, nothing left running', async () => {
    const out = await query({ sql: ORDERED[engine], max_rows: 5 });
    expect(out).toMatchObject({ statement_kind: 'read', row_count: 5, is_truncated: true, truncated_reason: 'max_rows', cells_truncated: 0 });
    expect(out.rows).toEqual([[1], [2], [3], [4], [5]]);
    expect(out.columns).toEqual([{ name: 'n', type: engine === 'postgres' ? 'int4' : 'longlong' }]);
    await expect.poll(busy, { timeout: 2_000, interval: 25 }).toBe(0);
  });

  it('max_bytes: 4096 over a hundred million wide rows: the rows that fit, truncated by max_bytes', async () => {
    const out = await query({ sql: HUGE_SQL[engine](WIDE_VALUE[engine]), max_rows: 10_000, max_bytes: 4_096 });
    // A row takes about 2 KB of the answer, as JSON and as text; MariaDB's second column is named by its expression.
    const rows = engine === 'postgres' ? 2 : 1;
    expect(out).toMatchObject({ statement_kind: 'read', row_count: rows, is_truncated: true, truncated_reason: 'max_bytes', cells_truncated: 0 });
    expect(out.rows).toEqual([1, 2].slice(0, rows).map((n) => [n, 'x'.repeat(1_000)]));
    await expect.poll(busy, { timeout: 2_000, interval: 25 }).toBe(0);
  });

  it('one wide first row past max_bytes is still returned, cut to fit', async () => {
    const out = await query({ sql: HUGE_SQL[engine](WIDE_VALUE[engine].replace('1000', '5000')), max_bytes: 1_024 });
    expect(out).toMatchObject({ row_count: 1, is_truncated: true, truncated_reason: 'max_bytes', cells_truncated: 1 });
    expect(out.rows[0][0]).toBe(1);
    expect(out.rows[0][1]).toMatch(/^x+…\[cut: 5000 characters in all\]$/);
    expect(JSON.stringify(out.rows).length).toBeLessThanOrEqual(1_024);
  });

  it(`more early stops in a row than the pool has sessions (${DATABASES.readSessions}), then ordinary reads: the pool is whole`, async () => {
    for (let i = 1; i <= 3 * DATABASES.readSessions; i++) {
      const out = await query({ sql: ORDERED[engine], max_rows: i });
      expect(out).toMatchObject({ row_count: i, truncated_reason: 'max_rows' });
      expect(out.rows.at(-1)).toEqual([i]);
    }
    // At once, more than the pool holds: a session left mid-result would hang or answer wrongly here.
    const answers = await Promise.all(
      Array.from({ length: 2 * DATABASES.readSessions }, (_, i) =>
        i % 2 === 0
          ? query({ sql: ORDERED[engine], max_rows: 2 })
          : query({ sql: `SELECT count(*) FROM books WHERE id <= ${engine === 'postgres' ? '$1' : '?'}`, params: [i] }),
      ),
    );
    answers.forEach((out, i) => expect(out.rows).toEqual(i % 2 === 0 ? [[1], [2]] : [[i]]));
    await expect.poll(busy, { timeout: 2_000, interval: 25 }).toBe(0);
  });

  it('a statement cancelled while its rows stream ends with -33002, is stopped on the server, and the pool still answers', async () => {
    const answer = mcp(
      app,
      'tools/call',
      { name: 'execute_query', arguments: { connection_id: 'db', sql: SLOW_ROWS[engine], max_rows: 10_000 } },
      { id: 'stream-cancel', headers },
    );
    await expect.poll(() => runningSleeps(fixture, 0.01), { timeout: 5_000, interval: 25 }).toBe(1);
    const notified = await sendCancelled(app, 'stream-cancel', headers);
    expect(notified.status).toBe(202);
    expectRpcError(await answer, 200, CANCELLED, 'stream-cancel');
    await expect.poll(busy, { timeout: 2_000, interval: 25 }).toBe(0);
    expect((await query({ sql: ORDERED[engine], max_rows: 3 })).rows).toEqual([[1], [2], [3]]);
  });
});

/** A write returning every row it made: 200,000 of them, generated by the server. */
const RETURNING_SQL: Record<ServerEngine, string> = {
  postgres: 'INSERT INTO sluice_many (id) SELECT generate_series(1, 200000) RETURNING id',
  mysql: 'INSERT INTO sluice_many (id) SELECT seq FROM seq_1_to_200000 RETURNING id',
};

describe.each(servers)('a write returning rows on %s', (engine) => {
  let fixture: EngineFixture;
  let catalog: ConnectionCatalog;

  beforeAll(async () => {
    fixture = await createFixture(engine);
    await fixture.query('CREATE TABLE sluice_many (id INTEGER PRIMARY KEY)');
    catalog = new ConnectionCatalog([fixture.connection]);
  });
  afterAll(async () => {
    await catalog?.close();
    await fixture?.drop();
  });

  it('keeps max_rows of its rows, counts every row it wrote, and commits', async () => {
    const db = catalog.database(fixture.connection);
    const result = await db.write(RETURNING_SQL[engine], { maxRows: 5, maxBytes: RESULTS.defaultBytes, timeoutMs: 30_000, signal: new AbortController().signal });
    expect(result).toMatchObject({ rows: [[1], [2], [3], [4], [5]], truncated: true, truncatedBy: 'max_rows', cellsCut: 0 });
    // MariaDB ends a result set without a count of affected rows; PostgreSQL's command tag has it.
    if (engine === 'postgres') expect(result.rowsAffected).toBe(200_000);
    expect(await fixture.query('SELECT count(*) FROM sluice_many')).toEqual([[engine === 'postgres' ? '200000' : 200_000]]);
  });
});
