import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, mcp, startTestApp, type TestApp } from '../helpers/testApp.js';
import { resultText } from '../../src/capabilities/resultText.js';
import { errorText, unfenced } from '../helpers/dataFence.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.dispose());

async function structured(name: string, args: Record<string, unknown>) {
  const res = await callTool(app, name, args);
  expect(res.status).toBe(200);
  expect(res.json.result.isError).toBe(false);
  expect(res.json.result.resultType).toBe('complete');
  // The text is the compact rendering of the structured object.
  expect(unfenced(res.json.result.content[0].text)).toBe(resultText(res.json.result.structuredContent));
  return res.json.result.structuredContent;
}

async function toolError(name: string, args: Record<string, unknown>) {
  const res = await callTool(app, name, args);
  expect(res.status).toBe(200);
  expect(res.json.result).toMatchObject({ isError: true, resultType: 'complete' });
  expect(res.json.result.content).toHaveLength(1);
  return errorText(res.json.result.content[0].text as string);
}

describe('catalogue tools on the demo SQLite database', () => {
  it('list_connections names the demo connection', async () => {
    const out = await structured('list_connections', {});
    expect(out.connections).toEqual([
      expect.objectContaining({
        id: 'demo',
        engine: 'sqlite',
        external_access: 'readWrite',
        ai_policy: 'askEachTime',
      }),
    ]);
  });

  it('list_databases, list_schemas and list_tables walk the demo', async () => {
    expect((await structured('list_databases', { connection_id: 'demo' })).databases).toEqual([
      'demo.sqlite',
    ]);
    expect(await structured('list_schemas', { connection_id: 'demo' })).toEqual({
      schemas: ['main'],
      default_schema: 'main',
    });
    const { tables } = await structured('list_tables', { connection_id: 'demo' });
    const names = tables.map((t: { name: string }) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['books', 'authors', 'customers', 'orders', 'order_items', 'reviews']),
    );
    expect(tables.filter((t: { type: string }) => t.type === 'view').length).toBeGreaterThanOrEqual(1);
    expect(tables.filter((t: { type: string }) => t.type === 'table').length).toBeGreaterThanOrEqual(6);
  });

  it('describe_table reports columns, primary key, indexes and foreign keys', async () => {
    const books = await structured('describe_table', { connection_id: 'demo', table: 'BOOKS' });
    expect(books).toMatchObject({ schema: 'main', name: 'books', type: 'table', primary_key: ['id'] });
    expect(books.columns[0]).toEqual({
      name: 'id',
      type: 'INTEGER',
      nullable: false,
      default: null,
      primary_key: true,
    });
    expect(books.foreign_keys).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ columns: ['publisher_id'], references_table: 'publishers' }),
      ]),
    );
    expect(books.indexes.length).toBeGreaterThan(0);
  });

  it('get_table_ddl returns the CREATE statements', async () => {
    const out = await structured('get_table_ddl', { connection_id: 'demo', table: 'orders' });
    expect(out.ddl).toMatch(/^CREATE TABLE orders/);
    expect(out.ddl).toMatch(/CREATE INDEX/);
  });

  it('search_schema finds tables, columns and indexes by part of their name', async () => {
    const { matches } = await structured('search_schema', { connection_id: 'demo', query: 'custom' });
    const kinds = new Set(matches.map((m: { kind: string }) => m.kind));
    expect(kinds).toEqual(new Set(['table', 'column', 'index']));
  });

  it('execute_query returns the result set shape of decisions.md', async () => {
    const out = await structured('execute_query', {
      connection_id: 'demo',
      sql: 'SELECT id, title FROM books WHERE id <= ? ORDER BY id',
      params: [3],
    });
    expect(out).toMatchObject({
      columns: [
        { name: 'id', type: 'INTEGER' },
        { name: 'title', type: 'TEXT' },
      ],
      row_count: 3,
      rows_affected: 0,
      is_truncated: false,
      statement_kind: 'read',
    });
    expect(out.rows.map((r: unknown[]) => r[0])).toEqual([1, 2, 3]);
    expect(typeof out.execution_time_ms).toBe('number');
  });

  it('execute_query caps rows at max_rows and says the result was truncated', async () => {
    const out = await structured('execute_query', {
      connection_id: 'demo',
      sql: 'SELECT * FROM order_items',
      max_rows: 7,
    });
    expect(out.row_count).toBe(7);
    expect(out.is_truncated).toBe(true);
    const all = await structured('execute_query', {
      connection_id: 'demo',
      sql: 'SELECT 1 UNION ALL SELECT 2',
      max_rows: 2,
    });
    expect(all.is_truncated).toBe(false);
  });

  it('explain_query returns the plan without running the statement', async () => {
    const out = await structured('explain_query', {
      connection_id: 'demo',
      sql: 'SELECT * FROM books WHERE publisher_id = 3',
    });
    expect(out.plan).toMatch(/books/);
    expect(out.statement_kind).toBe('read');
  });

  it('count_rows counts exactly, and falls back to exact without statistics', async () => {
    const { rows } = await structured('execute_query', {
      connection_id: 'demo',
      sql: 'SELECT count(*) FROM reviews',
    });
    expect(await structured('count_rows', { connection_id: 'demo', table: 'reviews', exact: true })).toEqual({
      schema: 'main',
      table: 'reviews',
      count: rows[0][0],
      exact: true,
    });
    expect((await structured('count_rows', { connection_id: 'demo', table: 'reviews' })).count).toBe(
      rows[0][0],
    );
  });

  it('browse_table filters, sorts and pages with bound values', async () => {
    const out = await structured('browse_table', {
      connection_id: 'demo',
      table: 'books',
      columns: ['id', 'title'],
      filters: [{ column: 'id', op: 'in', value: [5, 3, 9, 1] }],
      order_by: [{ column: 'id', direction: 'desc' }],
      limit: 3,
    });
    expect(out.rows.map((r: unknown[]) => r[0])).toEqual([9, 5, 3]);
    expect(out.is_truncated).toBe(true);
    const injection = await structured('browse_table', {
      connection_id: 'demo',
      table: 'books',
      filters: [{ column: 'title', op: '=', value: "x' OR '1'='1" }],
    });
    expect(injection.row_count).toBe(0);
  });

  it('browse_table refuses a column the table does not have', async () => {
    const text = await toolError('browse_table', {
      connection_id: 'demo',
      table: 'books',
      order_by: [{ column: 'id; DROP TABLE books' }],
    });
    expect(text).toMatch(/^invalid_argument: /);
  });
});

describe('tool errors', () => {
  it('a missing table is not_found', async () => {
    expect(await toolError('describe_table', { connection_id: 'demo', table: 'nope' })).toMatch(
      /^not_found: /,
    );
  });

  it('an unknown connection is not_found', async () => {
    expect(await toolError('list_tables', { connection_id: 'elsewhere' })).toMatch(/^not_found: /);
  });

  it('SQL the database rejects is query_failed, with the database message', async () => {
    expect(
      await toolError('execute_query', { connection_id: 'demo', sql: 'SELECT * FROM no_such_table' }),
    ).toMatch(/^query_failed: .*no such table/);
  });

  it('more than one statement is invalid_argument', async () => {
    expect(await toolError('execute_query', { connection_id: 'demo', sql: 'SELECT 1; SELECT 2' })).toMatch(
      /^invalid_argument: /,
    );
  });

  it('statements that reach the file system are denied on every tool', async () => {
    expect(await toolError('execute_query', { connection_id: 'demo', sql: "ATTACH 'x.db' AS x" })).toMatch(
      /^denied: /,
    );
    expect(
      await toolError('explain_query', { connection_id: 'demo', sql: "SELECT load_extension('x')" }),
    ).toMatch(/^denied: /);
  });

  it('transaction control is unsupported', async () => {
    expect(await toolError('execute_query', { connection_id: 'demo', sql: 'BEGIN' })).toMatch(
      /^unsupported: /,
    );
  });

  it('secrets echoed in an error are redacted', async () => {
    const text = await toolError('execute_query', {
      connection_id: 'demo',
      sql: 'SELECT * FROM "postgres://admin:hunter2@db/prod"',
    });
    expect(text).toMatch(/^query_failed: /);
    expect(text).not.toContain('hunter2');
  });
});

describe('scope and argument refusals', () => {
  it('a write without tools:write is -33007 with the scopes it needs, discovered after classifying', async () => {
    for (const sql of [
      "UPDATE books SET title = 'x' WHERE id = 1",
      'DELETE FROM reviews',
      'CREATE TABLE t (a)',
    ]) {
      const res = await callTool(app, 'execute_query', { connection_id: 'demo', sql });
      expect(res.status).toBe(403);
      expect(res.json.error).toMatchObject({
        code: -33007,
        data: { requiredScopes: ['tools:read', 'tools:write'] },
      });
      expect(res.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
    }
  });

  it('a statement the classifier calls a read but SQLite does not is handled as a write', async () => {
    const res = await callTool(app, 'execute_query', {
      connection_id: 'demo',
      sql: "WITH x AS (SELECT 1) REPLACE INTO genres (id, name) VALUES (1, 'x')",
    });
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe(-33007);
  });

  it('confirm_destructive_operation needs admin: -33007', async () => {
    const res = await callTool(app, 'confirm_destructive_operation', {
      connection_id: 'demo',
      sql: 'DROP TABLE books',
    });
    expect(res.status).toBe(403);
    expect(res.json.error).toMatchObject({
      code: -33007,
      data: { requiredScopes: ['tools:read', 'tools:write', 'admin'] },
    });
  });

  it('unknown tools and unknown or mistyped arguments are -32602', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['no_such_tool', {}],
      ['list_tables', {}],
      ['list_tables', { connection_id: 'demo', colour: 'red' }],
      ['execute_query', { connection_id: 'demo', sql: 'SELECT 1', max_rows: 10_001 }],
      ['execute_query', { connection_id: 'demo', sql: 'SELECT 1', timeout_seconds: 0 }],
      ['execute_query', { connection_id: 'demo' }],
      ['browse_table', { connection_id: 'demo', limit: 5 }],
      [
        'browse_table',
        { connection_id: 'demo', table: 'books', filters: [{ column: 'id', op: 'regexp', value: 1 }] },
      ],
    ];
    for (const [name, args] of cases) {
      const res = await callTool(app, name, args);
      expect(res.status, name).toBe(400);
      expect(res.json.error.code, name).toBe(-32602);
    }
  });

  it('a tool call with arguments that are not an object is -32602', async () => {
    const res = await mcp(app, 'tools/call', { name: 'list_connections', arguments: [] });
    expect(res.json.error.code).toBe(-32602);
  });
});
