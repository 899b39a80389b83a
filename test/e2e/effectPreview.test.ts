import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { previewEffect } from '../../src/capabilities/effectPreview.js';
import { DATABASES } from '../../src/core/contract.js';
import { openDatabase } from '../../src/db/connections/connectionCatalog.js';
import type { Database, Engine } from '../../src/db/database.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { ELICITATION_META, expectInputRequired } from '../helpers/consentRoundTrip.js';
import { availableEngines, createFixture, type EngineFixture, startFixtureApp } from '../helpers/engines.js';
import { expectToolError } from '../helpers/rpcAssertions.js';
import { callTool, mintToken } from '../helpers/testApp.js';

/**
 * The preview of an UPDATE's or DELETE's effect (docs/console.md, "What a dialog shows"), on each engine:
 * the rows its condition matches, counted read only with its bound values; the planner's estimate when
 * counting takes too long; the table never changed by it; and the dialog and the elicitation carrying it.
 */

const engines = await availableEngines();
const never = new AbortController().signal;

/** `?` on SQLite and MySQL, `$n` on PostgreSQL and DuckDB. */
const placeholder = (engine: Engine, n: number) => (engine === 'postgres' || engine === 'duckdb' ? `$${n}` : '?');

/** A condition that takes about `seconds` per row it is evaluated on, on each engine. */
const slowly = (engine: Engine, seconds: number) =>
  engine === 'postgres'
    ? `pg_sleep(${seconds}) IS NOT NULL`
    : engine === 'mysql'
      ? `SLEEP(${seconds}) = 0`
      : engine === 'duckdb'
        ? // DuckDB has no sleep: a count of ten billion pairs, once.
          'id > (SELECT count(*) - 10000000000 FROM range(100000) a, range(100000) b)'
        : // SQLite has no sleep: a recursive count of ten million steps, once.
          'id > (SELECT count(*) - 10000000 FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000) SELECT x FROM c))';

describe.each(engines)('the effect preview on %s', (engine) => {
  skipListed('effectPreview', engine);
  let fixture: EngineFixture;
  let db: Database;
  const snapshot = () => fixture.query('SELECT count(*), sum(price), min(title) FROM books');

  beforeAll(async () => {
    fixture = await createFixture(engine);
    db = openDatabase(fixture.connection);
  });
  afterAll(async () => {
    await db?.close();
    await fixture?.drop();
  });

  it('counts the rows the condition matches now, with the bound values, and changes nothing', async () => {
    const before = await snapshot();
    const p = (n: number) => placeholder(engine, n);
    expect(await previewEffect(db, { sql: `UPDATE books SET price = price * 2, title = ${p(1)} WHERE author_id = ${p(2)}`, params: ['x', 1] }, never)).toEqual({
      rows: 9,
      basis: 'counted',
    });
    const returning = engine === 'mysql' ? '' : ' RETURNING id';
    expect(await previewEffect(db, { sql: `DELETE FROM books WHERE author_id = ${p(1)} AND price > ${p(2)}${returning}`, params: [2, 20] }, never)).toEqual({
      rows: 6,
      basis: 'counted',
    });
    expect(await previewEffect(db, { sql: 'DELETE FROM books', params: [] }, never)).toEqual({ rows: 25, basis: 'counted' });
    expect(await previewEffect(db, { sql: "INSERT INTO books (id, author_id, title) VALUES (99, 1, 'x')", params: [] }, never)).toBeUndefined();
    // What is not previewed says why (PostgreSQL has no DELETE … LIMIT; its UPDATE … FROM joins).
    const [unread, why] =
      engine === 'postgres'
        ? ['UPDATE books SET price = 1 FROM authors WHERE authors.id = books.author_id', 'a statement with WITH, FROM or USING is not previewed']
        : ['DELETE FROM books WHERE id > 3 ORDER BY id LIMIT 2', 'ORDER is not previewed'];
    expect(await previewEffect(db, { sql: unread, params: [] }, never)).toEqual({ rows: null, reason: why });
    expect(await snapshot()).toEqual(before);
  });

  it('past its time the count is stopped: the planner estimates instead where it can, within the time allowed twice', async () => {
    const before = await snapshot();
    const timeoutMs = 300;
    const started = performance.now();
    const effect = await previewEffect(db, { sql: `UPDATE books SET title = 'slow' WHERE id > 3 AND ${slowly(engine, 0.1)}`, params: [] }, never, timeoutMs);
    const elapsed = performance.now() - started;
    if (engine === 'sqlite') expect(effect).toEqual({ rows: null, reason: 'counting took over 0.3 s and SQLite keeps no row estimates' });
    else if (engine === 'duckdb') expect(effect).toEqual({ rows: null, reason: 'counting took over 0.3 s and the planner gave no estimate' });
    else expect(effect).toEqual({ rows: expect.any(Number), basis: 'planner' });
    // The count's 0.3 s, the engine's own grace in stopping it, and the planner's answer.
    expect(elapsed).toBeLessThan(2 * timeoutMs + DATABASES.deadlineGraceMs + 1_000);
    expect(await snapshot()).toEqual(before);
  });

  it('a condition that changes state is never run early', async () => {
    const fn = engine === 'mysql' ? "GET_LOCK('sluice_preview', 0)" : engine === 'sqlite' ? undefined : "nextval('sluice_canary_seq')";
    if (!fn) return;
    expect(await previewEffect(db, { sql: `DELETE FROM books WHERE id = ${fn}`, params: [] }, never)).toEqual({
      rows: null,
      reason: 'its condition changes state, so it is not run early',
    });
    if (engine === 'postgres') expect(await fixture.query('SELECT last_value, is_called FROM sluice_canary_seq')).toEqual([['1', false]]);
    if (engine === 'duckdb') expect(await fixture.query("SELECT last_value FROM duckdb_sequences() WHERE sequence_name = 'sluice_canary_seq'")).toEqual([[null]]);
  });
});

describe.each(engines)('the preview reaches the user on %s', (engine) => {
  skipListed('effectPreview', engine);
  it('the console’s dialog and the elicitation carry it; the statement waits unrun', async () => {
    const served = await startFixtureApp(engine, { auth: true });
    try {
      const { app, fixture } = served;
      const writer = mintToken(app, 'Preview writer', 'readWrite');
      const sql = `DELETE FROM books WHERE author_id = ${placeholder(engine, 1)}`;
      const args = { connection_id: 'db', sql, params: [3] };

      const elicited = expectInputRequired(
        await callTool(app, 'execute_query', args, { headers: writer.headers, extraMeta: ELICITATION_META }),
        sql,
      );
      expect(elicited.length).toBeGreaterThan(0);
      const res = await callTool(app, 'execute_query', args, { headers: writer.headers, extraMeta: ELICITATION_META });
      const message = res.json.result.inputRequests.approve_statement.params.message as string;
      expect(message).toContain(`1 | ${sql}`);
      expect(message).toContain(`${placeholder(engine, 1).replace('?', '?1')} (integer) = 3`);
      expect(message).toContain('\n8 rows will change (tried, then rolled back).\nChanged rows (- before, + after, * a value that changes):\n');
      expect(message).toContain('(DELETE changes data)');

      const pending = callTool(app, 'execute_query', args, { headers: writer.headers });
      await expect.poll(() => app.dialogs.list().length, { timeout: 5_000 }).toBe(1);
      const [dialog] = app.dialogs.list();
      expect(dialog).toMatchObject({
        statement: sql,
        params: [3],
        statementKind: 'write',
        statementReason: 'DELETE changes data',
        engine,
        database: 'path' in fixture.connection ? fixture.connection.path : fixture.database,
        tokenName: 'Preview writer',
        tokenLevel: 'readWrite',
        clientNameDeclared: false,
        effect: { rows: 8, basis: 'exact', columns: ['id', 'author_id', 'title', 'price'], changes: expect.any(Array) },
      });
      expect(dialog?.effect && 'changes' in dialog.effect ? dialog.effect.changes.map((c) => [c.before?.[0], c.after]) : []).toEqual(
        [3, 6, 9, 12, 15, 18, 21, 24].map((id) => [id, null]),
      );
      expect(await fixture.query('SELECT count(*) FROM books')).toEqual([[engine === 'postgres' ? '25' : 25]]);
      expect(app.dialogs.answer(dialog!.id, 'deny')).toBe(true);
      expectToolError(await pending, 'denied');
      expect(await fixture.query('SELECT count(*) FROM books')).toEqual([[engine === 'postgres' ? '25' : 25]]);
    } finally {
      await served.dispose();
    }
  });
});
