import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import type { Engine } from '../../src/db/database.js';
import { ACCEPTED, CONSENT_KEY, ELICITATION_META, expectInputRequired, repeatToolCall } from '../helpers/consentRoundTrip.js';
import { expectModernSuccess, expectToolError } from '../helpers/rpcAssertions.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, createFixture, type EngineFixture, FIXTURE_BOOKS } from '../helpers/engines.js';
import { callTool, mcp, mintToken, type RawResponse, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * The same end-to-end scenarios on SQLite, PostgreSQL, MariaDB and DuckDB (issue 6, "Done means"): every tool,
 * resource and prompt against a fixture of its own on each engine, through real HTTP with a readWrite token.
 */

const engines = await availableEngines();

/** The placeholder of the n-th bound value on each engine. */
const placeholder = (engine: Engine, n: number) => (engine === 'postgres' || engine === 'duckdb' ? `$${n}` : '?');

describe.each(engines)('on %s', (engine) => {
  skipListed('engines', engine);
  let fixture: EngineFixture;
  let app: TestApp;
  let dataDir: string;
  let headers: Record<string, string>;

  /** A tool call on the fixture's connection (`connection_id` added unless the tool takes none). */
  const tool = async (name: string, args: Record<string, unknown>) =>
    callTool(app, name, name === 'list_connections' ? args : { connection_id: 'db', ...args }, { headers });
  const structured = async (name: string, args: Record<string, unknown>) => {
    const res = await tool(name, args);
    const result = expectModernSuccess(res);
    expect(result.isError, JSON.stringify(result.content)).toBe(false);
    return result.structuredContent;
  };

  beforeAll(async () => {
    fixture = await createFixture(engine);
    dataDir = mkdtempSync(join(tmpdir(), `sluice-${engine}-`));
    writeConfig(dataDir, { connections: [fixture.connection] });
    app = await startTestApp({ dataDir, auth: true });
    headers = mintToken(app, `${engine} suite`).headers;
  });
  afterAll(async () => {
    await app?.dispose();
    await fixture?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('list_connections names the engine', async () => {
    const { connections } = await structured('list_connections', {});
    expect(connections).toEqual([expect.objectContaining({ id: 'db', engine })]);
  });

  it('list_databases and list_schemas include the fixture and the default schema', async () => {
    expect((await structured('list_databases', {})).databases).toContain(fixture.database);
    const defaultSchema = { sqlite: 'main', postgres: 'public', mysql: fixture.database, duckdb: 'main' }[engine];
    expect((await structured('list_schemas', {})).schemas).toContain(defaultSchema);
  });

  it('list_tables lists tables and views of the default schema', async () => {
    const { tables } = await structured('list_tables', {});
    expect(tables.map((t: { name: string; type: string }) => [t.name, t.type])).toEqual([
      ['authors', 'table'],
      ['book_titles', 'view'],
      ['books', 'table'],
      ['sluice_canary', 'table'],
    ]);
  });

  it('describe_table gives columns, primary key, indexes and foreign keys', async () => {
    const books = await structured('describe_table', { table: 'books' });
    expect(books.columns.map((c: { name: string }) => c.name)).toEqual(['id', 'author_id', 'title', 'price']);
    expect(books.columns.find((c: { name: string }) => c.name === 'title')).toMatchObject({ nullable: false, primary_key: false });
    expect(books.primary_key).toEqual(['id']);
    expect(books.indexes).toContainEqual({ name: 'books_author_idx', columns: ['author_id'], unique: false });
    expect(books.foreign_keys).toEqual([
      expect.objectContaining({ columns: ['author_id'], references_table: 'authors', references_columns: ['id'], on_delete: 'CASCADE' }),
    ]);
  });

  it('get_table_ddl returns the table’s DDL, and a view’s', async () => {
    expect((await structured('get_table_ddl', { table: 'books' })).ddl).toMatch(/CREATE TABLE[\s\S]*author_id[\s\S]*authors/i);
    expect((await structured('get_table_ddl', { table: 'book_titles' })).ddl).toMatch(/VIEW[\s\S]*book_titles|SELECT/i);
  });

  it('search_schema finds tables and columns by name', async () => {
    const found = await structured('search_schema', { query: 'author' });
    expect(JSON.stringify(found)).toContain('author_id');
  });

  it('execute_query binds parameters and reports a read', async () => {
    const out = await structured('execute_query', {
      sql: `SELECT title FROM books WHERE author_id = ${placeholder(engine, 1)} AND price > ${placeholder(engine, 2)} ORDER BY id`,
      params: [2, 20],
    });
    expect(out).toMatchObject({ statement_kind: 'read', is_truncated: false });
    expect(out.rows.length).toBeGreaterThan(0);
    expect(out.columns.map((c: { name: string }) => c.name)).toEqual(['title']);
  });

  it('caps rows with is_truncated', async () => {
    const out = await structured('execute_query', { sql: 'SELECT id FROM books ORDER BY id', max_rows: 10 });
    expect(out).toMatchObject({ row_count: 10, is_truncated: true });
    expect(out.rows).toEqual(Array.from({ length: 10 }, (_, i) => [i + 1]));
  });

  it('explain_query returns a plan', async () => {
    const out = await structured('explain_query', { sql: 'SELECT * FROM books WHERE author_id = 1' });
    expect(out.statement_kind).toBe('read');
    expect(out.plan.length).toBeGreaterThan(0);
  });

  it('count_rows counts exactly, and approximately', async () => {
    expect(await structured('count_rows', { table: 'books', exact: true })).toMatchObject({ count: FIXTURE_BOOKS, exact: true });
    const approximate = await structured('count_rows', { table: 'books' });
    expect(typeof approximate.count).toBe('number');
  });

  it('browse_table filters, sorts and pages with bound values', async () => {
    const out = await structured('browse_table', {
      table: 'books',
      columns: ['id', 'title'],
      filters: [
        { column: 'author_id', op: '=', value: 1 },
        { column: 'title', op: 'like', value: 'Book 1%' },
      ],
      order_by: [{ column: 'id', direction: 'desc' }],
      limit: 3,
    });
    expect(out.rows).toEqual([
      [19, 'Book 19'],
      [16, 'Book 16'],
      [13, 'Book 13'],
    ]);
  });

  it('a write runs once the client consents, and changes the database', async () => {
    const args = { connection_id: 'db', sql: "INSERT INTO authors (id, name) VALUES (10, 'Stanisław Lem')" };
    const first = await callTool(app, 'execute_query', args, { headers, extraMeta: ELICITATION_META });
    const state = expectInputRequired(first, args.sql);
    const done = await repeatToolCall(app, 'execute_query', args, { requestState: state, inputResponses: { [CONSENT_KEY]: ACCEPTED } }, { headers, extraMeta: ELICITATION_META });
    expect(expectModernSuccess(done).structuredContent).toMatchObject({ statement_kind: 'write', rows_affected: 1 });
    expect(await fixture.query('SELECT name FROM authors WHERE id = 10')).toEqual([['Stanisław Lem']]);
  });

  it.each([
    'sluice://connections/db/schema',
    'sluice://connections/db/tables',
    'sluice://connections/db/tables/books',
    'sluice://connections/db/tables/books/ddl',
  ])('reads %s from the live schema', async (uri) => {
    const res = await mcp(app, 'resources/read', { uri }, { headers });
    const { contents } = expectModernSuccess(res);
    expect(contents[0].uri).toBe(uri);
    expect(contents[0].text).toContain(uri.endsWith('/tables') ? 'book_titles' : 'author_id');
  });

  it.each([
    ['explain_schema', {}],
    ['explain_table', { table: 'books' }],
    ['question_to_sql', { question: 'Which author wrote the most books?' }],
    ['review_query', { sql: 'SELECT * FROM books' }],
    ['write_migration', { change: 'add an isbn column to books' }],
  ])('renders the %s prompt from the live schema', async (name, args) => {
    const res = await mcp(app, 'prompts/get', { name, arguments: { connection_id: 'db', ...args } }, { headers });
    const text = JSON.stringify(expectModernSuccess(res).messages);
    expect(text).toContain('books');
    expect(text).toContain({ postgres: 'PostgreSQL', mysql: 'MySQL', sqlite: 'SQLite', duckdb: 'DuckDB' }[engine]);
  });

  it('completion offers the engine’s tables for a prompt’s table argument', async () => {
    const res = await mcp(
      app,
      'completion/complete',
      {
        ref: { type: 'ref/prompt', name: 'explain_table' },
        argument: { name: 'table', value: 'bo' },
        context: { arguments: { connection_id: 'db' } },
      },
      { headers },
    );
    expect(expectModernSuccess(res).completion.values).toEqual(['book_titles', 'books']);
  });

  it('the query history resource lists what ran, without parameters', async () => {
    const res = await mcp(app, 'resources/read', { uri: 'sluice://connections/db/history?limit=50' }, { headers });
    expect(JSON.stringify(expectModernSuccess(res).contents)).toContain('SELECT id FROM books ORDER BY id');
  });

  it('a query error is a query_failed tool error, the process stays healthy', async () => {
    const res: RawResponse = await tool('execute_query', { sql: 'SELECT no_such_column FROM books' });
    expectToolError(res, 'query_failed');
    expect((await structured('list_connections', {})).connections).toHaveLength(1);
  });


  it('DROP runs only through confirm_destructive_operation, with admin and consent', async () => {
    const admin = mintToken(app, `${engine} admin`, 'fullAccess').headers;
    const args = { connection_id: 'db', sql: 'DROP VIEW book_titles' };
    expectToolError(await callTool(app, 'execute_query', args, { headers: admin }), 'unsupported');
    const first = await callTool(app, 'confirm_destructive_operation', args, { headers: admin, extraMeta: ELICITATION_META });
    const state = expectInputRequired(first, args.sql);
    const done = await repeatToolCall(
      app,
      'confirm_destructive_operation',
      args,
      { requestState: state, inputResponses: { [CONSENT_KEY]: ACCEPTED } },
      { headers: admin, extraMeta: ELICITATION_META },
    );
    expect(expectModernSuccess(done).structuredContent).toMatchObject({ statement_kind: 'destructive' });
    const { tables } = await structured('list_tables', {});
    expect(tables.map((t: { name: string }) => t.name)).not.toContain('book_titles');
  });
});
