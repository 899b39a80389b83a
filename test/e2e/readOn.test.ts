import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { callControl } from '../../src/cli/controlClient.js';
import { engineModule } from '../../src/db/engines/registry.js';
import { RESULT_CURSORS, RESULTS } from '../../src/core/contract.js';
import { sqlitePoolSettings } from '../../src/db/engines/sqlite/poolSettings.js';
import { availableEngines, type EngineFixture, heldSessions, startFixtureApp } from '../helpers/engines.js';
import { fenceParts } from '../helpers/dataFence.js';
import { expectModernSuccess, expectToolError, expectToolSuccess } from '../helpers/rpcAssertions.js';
import { callTool, type TestApp } from '../helpers/testApp.js';

/**
 * Issue 30, item 2: a cut execute_query or browse_table answer carries next_cursor, which reads on over
 * the same snapshot: bound to its token and connection, expiring 5 minutes after its last page, at most
 * 4 open per token and per connection, and its session given back when it ends; on all four engines
 * (SQLite in WAL mode). An engine whose driver cannot hold a read (no `holdsReads`) answers as before,
 * with no next_cursor.
 */

const engines = await availableEngines();

type Minted = { id: string; headers: Record<string, string> };

/** A clock the suite moves by hand, starting at the real time (tokens are checked against it). */
function clockAtNow(): SimulatedClock {
  const clock = new SimulatedClock();
  clock.set(Date.now());
  return clock;
}

/**
 * The fixture's table `table`, ids 1 to `count` (at most 100,000) with `v` = 'v' || id, made by the
 * engine itself: five digits of a ten-row recursive series (MariaDB stops recursion at 1,000 rows).
 */
async function numbered(fixture: EngineFixture, table: string, count: number): Promise<void> {
  await fixture.query(`CREATE TABLE ${table} (id integer PRIMARY KEY, v text NOT NULL)`);
  await fixture.query(
    `INSERT INTO ${table} (id, v) WITH RECURSIVE d(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM d WHERE i < 9)
     SELECT n, concat('v', n) FROM (SELECT a.i + 10 * b.i + 100 * c.i + 1000 * e.i + 10000 * f.i + 1 AS n FROM d a, d b, d c, d e, d f) s
     WHERE n <= ${count}`,
  );
}

describe.each(engines)('reading on from a cut answer on %s', (engine) => {
  const holds = engineModule(engine).holdsReads === true;
  let app: TestApp;
  let fixture: EngineFixture;
  let dispose: () => Promise<void>;
  let clock: SimulatedClock;
  let mint: (name: string) => Minted;
  let query: (token: Minted, args: Record<string, unknown>) => ReturnType<typeof callTool>;
  let baseline: number;
  /** Reads held open now: their heldRead actors, and (where the server shows them) their sessions, which must agree. */
  const heldNow = async () => {
    const reads = app.liveActors() - baseline;
    const sessions = await heldSessions(fixture);
    if (sessions !== undefined) expect(sessions).toBe(reads);
    return reads;
  };

  beforeAll(async () => {
    clock = clockAtNow();
    ({ app, fixture, dispose } = await startFixtureApp(engine, { auth: true, clock }));
    // SQLite holds a read only in WAL mode, where its read transaction blocks no writer (the demo database is WAL).
    if (engine === 'sqlite') await fixture.query('PRAGMA journal_mode = WAL');
    mint = (name) => {
      const { record, plaintext } = app.tokens.mint({ name, level: 'readWrite', connections: 'all', expiresInDays: null, now: clock.now() });
      return { id: record.id, headers: { authorization: `Bearer ${plaintext}` } };
    };
    query = (token, args) => callTool(app, 'execute_query', { connection_id: 'db', ...args }, { headers: token.headers });
    await numbered(fixture, 'numbered', 25);
    baseline = app.liveActors();
  }, 60_000);
  afterAll(async () => {
    await dispose?.();
  });

  const ids = (result: Record<string, any>) => result.rows.map((row: unknown[]) => Number(row[0]));
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  it('pages a cut execute_query answer to its end: every row once, in order, the last page without a cursor', async () => {
    const token = mint('pager');
    const first = expectToolSuccess(await query(token, { sql: 'SELECT id, v FROM numbered ORDER BY id', max_rows: 10 }));
    expect(ids(first)).toEqual(range(1, 10));
    expect(first).toMatchObject({ is_truncated: true, truncated_reason: 'max_rows' });
    if (!holds) {
      expect(first).not.toHaveProperty('next_cursor');
      return;
    }
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = expectToolSuccess(await query(token, { cursor: first.next_cursor, max_rows: 10 }));
    expect(ids(second)).toEqual(range(11, 20));
    // The same statement may be repeated beside the cursor.
    const third = expectToolSuccess(await query(token, { cursor: second.next_cursor, sql: 'SELECT id, v FROM numbered ORDER BY id', max_rows: 10 }));
    expect(ids(third)).toEqual(range(21, 25));
    expect(third).toMatchObject({ is_truncated: false, truncated_reason: 'none', statement_kind: 'read' });
    expect(third).not.toHaveProperty('next_cursor');
    expect(await heldNow()).toBe(0);
    // Read to its end, the cursor is closed; an earlier one was used already.
    expect(expectToolError(await query(token, { cursor: second.next_cursor }), 'invalid_argument')).toMatch(/^invalid_argument: the cursor is closed: its read ended/);
  });

  it.runIf(holds)('pages a cut browse_table answer with its limit as the page size', async () => {
    const token = mint('browser');
    const browse = (args: Record<string, unknown>) => callTool(app, 'browse_table', { connection_id: 'db', ...args }, { headers: token.headers });
    const first = expectToolSuccess(await browse({ table: 'numbered', order_by: [{ column: 'id', direction: 'desc' }], offset: 3, limit: 8 }));
    expect(ids(first)).toEqual(range(15, 22).reverse());
    const second = expectToolSuccess(await browse({ cursor: first.next_cursor, limit: 8 }));
    expect(ids(second)).toEqual(range(7, 14).reverse());
    const other = expectToolError(await browse({ cursor: second.next_cursor, table: 'numbered' }), 'invalid_argument');
    expect(other).toBe('invalid_argument: the cursor reads on another statement: leave sql out, or pass the statement it was issued for');
    const last = expectToolSuccess(await browse({ cursor: second.next_cursor, limit: 8 }));
    expect(ids(last)).toEqual(range(1, 6).reverse());
    expect(last).not.toHaveProperty('next_cursor');
  });

  it.runIf(holds)('refuses a cursor that is tampered with, another token’s, another tool’s, or beside other sql', async () => {
    const owner = mint('owner');
    const stranger = mint('stranger');
    const { next_cursor: cursor } = expectToolSuccess(await query(owner, { sql: 'SELECT id FROM numbered ORDER BY id', max_rows: 5 }));
    const flipped = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
    expect(expectToolError(await query(owner, { cursor: flipped }), 'invalid_argument')).toBe(
      'invalid_argument: the cursor is malformed or was not issued by this server (cursors do not outlive a restart)',
    );
    expect(expectToolError(await query(stranger, { cursor }), 'invalid_argument')).toBe('invalid_argument: the cursor is not yours: it was issued to another token');
    const browsed = await callTool(app, 'browse_table', { connection_id: 'db', cursor }, { headers: owner.headers });
    expect(expectToolError(browsed, 'invalid_argument')).toBe('invalid_argument: the cursor was issued by execute_query, not browse_table');
    expect(expectToolError(await query(owner, { cursor, sql: 'SELECT 1' }), 'invalid_argument')).toBe(
      'invalid_argument: the cursor reads on another statement: leave sql out, or pass the statement it was issued for',
    );
    expect(expectToolError(await query(owner, { cursor, params: [1] }), 'invalid_argument')).toBe(
      'invalid_argument: params belongs to the statement the cursor reads on: leave it out beside cursor',
    );
    // None of those moved it: it still reads on from row 6.
    expect(ids(expectToolSuccess(await query(owner, { cursor, max_rows: 100 })))).toEqual(range(6, 25));
  });

  it.runIf(holds)('expires 5 minutes after its last page, giving its session back', async () => {
    const token = mint('idler');
    const first = expectToolSuccess(await query(token, { sql: 'SELECT id FROM numbered ORDER BY id', max_rows: 5 }));
    clock.increment(RESULT_CURSORS.idleMs - 1_000);
    const second = expectToolSuccess(await query(token, { cursor: first.next_cursor, max_rows: 5 }));
    expect(ids(second)).toEqual(range(6, 10));
    // Five minutes after the first page, but not after the second: still open.
    clock.increment(2_000);
    expect(await heldNow()).toBe(1);
    clock.increment(RESULT_CURSORS.idleMs);
    await expect.poll(heldNow, { timeout: 5_000 }).toBe(0);
    expect(expectToolError(await query(token, { cursor: second.next_cursor }), 'invalid_argument')).toBe(
      'invalid_argument: the cursor expired: its read was closed 5 minutes after its last page; run the statement again',
    );
  });

  it.runIf(holds)('sees the snapshot of its first page through 100,000 rows while another session writes', async () => {
    await numbered(fixture, 'big', 100_000);
    const token = mint('snapshot');
    // The pages of 10,000 rows are cut further to the default token budget: the next page starts after the last row handed on.
    let page = expectToolSuccess(await query(token, { sql: 'SELECT id, v FROM big ORDER BY id', max_rows: 10_000 }));
    expect(page).toMatchObject({ is_truncated: true, truncated_reason: 'max_tokens' });
    let seen = ids(page);
    let pages = 1;
    while (page.next_cursor) {
      // Between pages: new rows, and rows not yet read changed, on a session of the fixture's own.
      await fixture.query(`INSERT INTO big (id, v) VALUES (${100_000 + pages}, 'new')`);
      await fixture.query(`UPDATE big SET v = 'changed' WHERE id IN (${seen.length + 1}, ${Math.min(seen.length + 5_000, 99_999)}, 100000)`);
      page = expectToolSuccess(await query(token, { cursor: page.next_cursor, max_rows: 10_000 }));
      expect(page.rows.every((row: unknown[]) => row[1] === `v${String(row[0])}`)).toBe(true);
      seen = seen.concat(ids(page));
      pages += 1;
    }
    expect(seen).toEqual(range(1, 100_000));
    expect(Number((await fixture.query('SELECT count(*) FROM big'))[0]?.[0])).toBe(100_000 + pages - 1);
    console.log(`${engine}: 100,000 rows in ${pages} pages of max_rows 10,000 cut to ${RESULTS.defaultTokens} tokens`);
  }, 120_000);

  it.runIf(holds)('pages an answer cut to max_tokens, read whole by the driver, to its end: every row once, in order', async () => {
    await numbered(fixture, 'tokens', 400);
    const token = mint('budget');
    const call = (tool: string, args: Record<string, unknown>) => callTool(app, tool, { connection_id: 'db', max_tokens: 500, ...args }, { headers: token.headers });
    for (const [tool, args] of [
      ['execute_query', { sql: 'SELECT id, v FROM tokens ORDER BY id', max_rows: 1_000 }],
      ['browse_table', { table: 'tokens', order_by: [{ column: 'id' }], limit: 1_000 }],
    ] as const) {
      let response = await call(tool, args);
      let page = expectToolSuccess(response);
      let seen: number[] = [];
      let pages = 0;
      for (;;) {
        pages += 1;
        expect(page.row_count).toBe(page.rows.length);
        seen = seen.concat(ids(page));
        if (!page.next_cursor) break;
        expect(page).toMatchObject({ is_truncated: true, truncated_reason: 'max_tokens' });
        expect(fenceParts(expectModernSuccess(response).content[0].text).note).toBe(
          `[Cut to 500 tokens: this answer holds ${page.row_count} row(s); more exist. To read on, call again with next_cursor (the same result, not a re-run); or narrow it (fewer columns, a WHERE) or raise max_tokens (at most 20000).]`,
        );
        response = await call(tool, { cursor: page.next_cursor, ...(tool === 'execute_query' ? { max_rows: 1_000 } : { limit: 1_000 }) });
        page = expectToolSuccess(response);
      }
      expect(pages).toBeGreaterThan(3);
      expect(seen).toEqual(range(1, 400));
      expect(page).toMatchObject({ is_truncated: false, truncated_reason: 'none' });
    }
    expect(await heldNow()).toBe(0);
  });

  // SQLite's pool is one for every connection: its own cap follows.
  it.runIf(holds && engine !== 'sqlite')('holds at most 4 per token and fewer than the pool per connection; a token’s own newer statement closes its oldest', async () => {
    for (const id of ['db2', 'db3']) await callControl(app.dataDir, 'connections.add', { ...fixture.connection, id, name: id });
    const greedy = mint('greedy');
    const other = mint('other');
    const sql = 'SELECT id FROM numbered ORDER BY id';
    const cut = (token: Minted, connection: string) => callTool(app, 'execute_query', { connection_id: connection, sql, max_rows: 1 }, { headers: token.headers });
    const held = [];
    for (const connection of ['db', 'db', 'db2', 'db2']) held.push(expectToolSuccess(await cut(greedy, connection)).next_cursor);
    expect(expectToolError(await cut(greedy, 'db3'), 'invalid_argument')).toBe(
      'invalid_argument: the answer was cut and this token has 4 cursors open, the most: read one to its end or let one expire (5 minutes after its last page), or ask for fewer rows',
    );
    // The connection's pool has 4 sessions: 3 may be held, one stays for everyone else.
    expectToolSuccess(await cut(other, 'db'));
    expect(expectToolError(await cut(other, 'db'), 'invalid_argument')).toMatch(/^invalid_argument: the answer was cut and this connection has 3 cursors open, the most it holds/);
    // A third statement of greedy's on db finds its share (2 sessions) held: its oldest cursor gives way.
    expectToolSuccess(await query(greedy, { sql: 'SELECT 1' }));
    expect(expectToolError(await query(greedy, { cursor: held[0] }), 'invalid_argument')).toBe(
      'invalid_argument: the cursor is closed: it was closed to free a session for a newer statement of the same token; run the statement again',
    );
    expect(ids(expectToolSuccess(await query(greedy, { cursor: held[1], max_rows: 2 })))).toEqual([2, 3]);
  });

  it.runIf(holds && engine === 'sqlite')('SQLite: held reads leave one process of the shared pool free, across its connections; past that a cut answer has no cursor', async () => {
    const size = sqlitePoolSettings(process.env).processes;
    await callControl(app.dataDir, 'connections.add', { ...fixture.connection, id: 'db4', name: 'db4' });
    const holders = Array.from({ length: size - 1 - (await heldNow()) }, (_, i) => mint(`holder ${i}`));
    const cut = (token: Minted, connection: string) =>
      callTool(app, 'execute_query', { connection_id: connection, sql: 'SELECT id FROM numbered ORDER BY id', max_rows: 1 }, { headers: token.headers });
    for (const [i, holder] of holders.entries()) expect(expectToolSuccess(await cut(holder, i % 2 === 0 ? 'db4' : 'db')).next_cursor).toEqual(expect.any(String));
    expect(await heldNow()).toBe(size - 1);
    const late = mint('late');
    const uncut = expectToolSuccess(await cut(late, 'db'));
    expect(uncut).toMatchObject({ row_count: 1, is_truncated: true, truncated_reason: 'max_rows' });
    expect(uncut).not.toHaveProperty('next_cursor');
    // The process left free serves everyone else.
    expect(expectToolSuccess(await query(late, { sql: 'SELECT count(*) FROM numbered' })).rows).toEqual([[25]]);
    for (const holder of holders) app.tokens.revoke(holder.id, clock.now());
    await expect.poll(heldNow, { timeout: 5_000 }).toBe(0);
    expect(expectToolSuccess(await cut(late, 'db')).next_cursor).toEqual(expect.any(String));
    app.tokens.revoke(late.id, clock.now());
    await expect.poll(heldNow, { timeout: 5_000 }).toBe(0);
  });

  it.runIf(holds && engine === 'sqlite')('SQLite: a database not in WAL mode holds no read (it would block writers): its cut answer has no cursor', async () => {
    const path = join(dirname((fixture.connection as { path: string }).path), 'rollback.sqlite');
    const db = new Database(path);
    db.exec('CREATE TABLE t (id integer PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3)');
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    db.close();
    await callControl(app.dataDir, 'connections.add', { ...fixture.connection, id: 'rollback', name: 'rollback', path });
    const token = mint('journal');
    const out = expectToolSuccess(await callTool(app, 'execute_query', { connection_id: 'rollback', sql: 'SELECT id FROM t ORDER BY id', max_rows: 1 }, { headers: token.headers }));
    expect(out).toMatchObject({ rows: [[1]], is_truncated: true, truncated_reason: 'max_rows' });
    expect(out).not.toHaveProperty('next_cursor');
    expect(await heldNow()).toBe(0);
  });

  it.runIf(holds)('gives the session back when its token is revoked or its connection removed', async () => {
    const token = mint('revoked');
    expectToolSuccess(await query(token, { sql: 'SELECT id FROM numbered ORDER BY id', max_rows: 1 }));
    const before = await heldNow();
    app.tokens.revoke(token.id, clock.now());
    await expect.poll(heldNow, { timeout: 5_000 }).toBe(before - 1);
    const keeper = mint('keeper');
    await callControl(app.dataDir, 'connections.add', { ...fixture.connection, id: 'gone', name: 'gone' });
    const cut = await callTool(app, 'execute_query', { connection_id: 'gone', sql: 'SELECT id FROM numbered', max_rows: 1 }, { headers: keeper.headers });
    expect(expectToolSuccess(cut).next_cursor).toEqual(expect.any(String));
    expect(await heldNow()).toBe(before);
    await callControl(app.dataDir, 'connections.remove', { id: 'gone' });
    expect(await heldNow()).toBe(before - 1);
  });
});
