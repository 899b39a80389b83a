import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_NAMES } from '../../src/core/shared/engineNames.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, type EngineFixture, startFixtureApp, type FixtureApp } from '../helpers/engines.js';
import { expectModernSuccess, expectRpcError, expectToolSuccess } from '../helpers/rpcAssertions.js';
import { callTool, mcp, startTestApp, type TestApp } from '../helpers/testApp.js';
import { unfenced } from '../helpers/dataFence.js';

/**
 * The prompts of issue 19, item 4 (data_quality_audit, propose_indexes, summarize_query_history) on
 * each engine, rendered from the fixture's live schema and history, and the completion of their table
 * and column arguments.
 */

const engines = await availableEngines();

describe.each(engines)('prompts and completion on %s', (engine) => {
  skipListed('promptsCatalogue', engine);
  let running: FixtureApp;
  let fixture: EngineFixture;
  let app: TestApp;
  let schema: string;

  /** The one user message of a prompt, as text. */
  const render = async (name: string, args: Record<string, string>) => {
    const result = expectModernSuccess(await mcp(app, 'prompts/get', { name, arguments: { connection_id: 'db', ...args } }));
    expect(result.messages).toHaveLength(1);
    expect(result.messages[0].role).toBe('user');
    expect(result.messages[0].content.type).toBe('text');
    return { description: result.description as string, text: result.messages[0].content.text as string };
  };
  const complete = (ref: Record<string, unknown>, name: string, value: string, context: Record<string, string>) =>
    mcp(app, 'completion/complete', { ref, argument: { name, value }, context: { arguments: context } });
  const completion = async (...args: Parameters<typeof complete>) => expectModernSuccess(await complete(...args)).completion;
  const audit = { type: 'ref/prompt', name: 'data_quality_audit' };

  beforeAll(async () => {
    running = await startFixtureApp(engine);
    ({ fixture, app } = running);
    schema = { sqlite: 'main', postgres: 'public', mysql: fixture.database, duckdb: 'main' }[engine];
  });
  afterAll(() => running?.dispose());

  it('prompts/list declares the new prompts’ arguments', async () => {
    const { prompts } = expectModernSuccess(await mcp(app, 'prompts/list'));
    const argumentsOf = (name: string) =>
      prompts
        .find((p: { name: string }) => p.name === name)
        .arguments.map((a: { name: string; required: boolean }) => `${a.name}${a.required ? '' : '?'}`);
    expect(argumentsOf('data_quality_audit')).toEqual(['connection_id', 'table', 'schema?', 'column?']);
    expect(argumentsOf('propose_indexes')).toEqual(['connection_id', 'table?', 'schema?', 'sql?']);
    expect(argumentsOf('summarize_query_history')).toEqual(['connection_id', 'limit?']);
  });

  it('data_quality_audit renders the table’s columns and keys and asks for the four checks', async () => {
    const { description, text } = await render('data_quality_audit', { table: 'books' });
    expect(description).toBe('A data quality audit of books in Fixture');
    expect(text.startsWith(`Audit the data quality of the table "books" in the ${ENGINE_NAMES[engine]} database "Fixture" (connection_id db). Check:\n`)).toBe(true);
    for (const check of ['nulls', 'duplicates on candidate keys', 'orphaned foreign keys', 'out-of-range values', 'read-only SQL'])
      expect(text).toContain(check);
    expect(text).toContain(`Table ${schema}.books\n  - id `);
    for (const column of ['author_id', 'title', 'price']) expect(text).toMatch(new RegExp(`\\n {2}- ${column} `));
    expect(text).toContain('  - (author_id) → authors(id)');
  });

  it('data_quality_audit focuses on one column, named in any case; an unknown one is -32602', async () => {
    expect((await render('data_quality_audit', { table: 'books', column: 'TITLE' })).text).toContain(
      '(connection_id db), focusing on the column title. Check:',
    );
    const res = await mcp(app, 'prompts/get', {
      name: 'data_quality_audit',
      arguments: { connection_id: 'db', table: 'books', column: 'nope' },
    });
    expect(expectRpcError(res, 400, -32602, 1).message).toBe('not_found: books has no column named "nope"; call describe_table');
  });

  it('propose_indexes renders one table’s indexes and foreign keys, and the statement to serve', async () => {
    const sql = 'SELECT * FROM books WHERE price > 20 ORDER BY title';
    const { description, text } = await render('propose_indexes', { table: 'books', sql });
    expect(description).toBe('Index proposals for Fixture');
    expect(text).toContain(`Propose indexes for the table "books" in the ${ENGINE_NAMES[engine]} database "Fixture" (connection_id db).`);
    expect(text).toContain(`run explain_query on it first and read the plan:\n\n\`\`\`sql\n${sql}\n\`\`\``);
    expect(text).toContain('The index_advice tool suggests indexes for a statement and list_indexes shows the existing ones in full.');
    expect(text).toMatch(/ {2}indexes:\n(.*\n)* {2}- books_author_idx \(author_id\)/);
    expect(text).toContain('  - (author_id) → authors(id)');
    expect(text).not.toContain('Table ' + `${schema}.authors`);
  });

  it('propose_indexes without a table renders every table of the schema', async () => {
    const { text } = await render('propose_indexes', {});
    expect(text).toContain('Propose indexes for its tables in the');
    expect(text).not.toContain('```sql');
    for (const table of ['authors', 'books', 'sluice_canary']) expect(text).toContain(`Table ${schema}.${table}\n`);
  });

  it('summarize_query_history renders the history newest first, one line each, up to limit', async () => {
    expect((await render('summarize_query_history', {})).text).toMatch(
      /The 0 most recent statements[^\n]*:\n\n<(data-[0-9a-f]{16})>\n\(no statement has run through Sluice on this connection since it started\)\n<\/\1>$/,
    );
    const run = (sql: string) => callTool(app, 'execute_query', { connection_id: 'db', sql });
    expectToolSuccess(await run('SELECT count(*)\nFROM   books'));
    expectToolSuccess(await run('SELECT name FROM authors'));
    const { description, text } = await render('summarize_query_history', {});
    expect(description).toBe('The recent query history of Fixture');
    expect(text).toContain('the slowest statements, and the failing ones');
    const lines = unfenced(text.slice(text.indexOf('<data-'))).split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^- \d{4}-\d\d-\d\dT\S+ read success \d+ ms 3 rows: SELECT name FROM authors$/),
      expect.stringMatching(/^- \S+ read success \d+ ms 1 rows: SELECT count\(\*\) FROM books$/),
    ]);
    const one = (await render('summarize_query_history', { limit: '1' })).text;
    expect(one).toContain('The 1 most recent statements');
    expect(one).not.toContain('FROM books');
    for (const limit of ['0', '201', 'many']) {
      const res = await mcp(app, 'prompts/get', { name: 'summarize_query_history', arguments: { connection_id: 'db', limit } });
      expect(expectRpcError(res, 400, -32602, 1).message).toBe('invalid_argument: limit must be an integer from 1 to 200');
    }
  });

  it('completes table names, prefix matches first, for every prompt and template with a table', async () => {
    for (const ref of [
      audit,
      { type: 'ref/prompt', name: 'propose_indexes' },
      { type: 'ref/prompt', name: 'explain_table' },
      { type: 'ref/resource', uri: 'sluice://connections/{connection_id}/tables/{table}{?schema}' },
      { type: 'ref/resource', uri: 'sluice://connections/{connection_id}/tables/{table}/ddl{?schema}' },
    ]) {
      expect(await completion(ref, 'table', 'AU', { connection_id: 'db', schema })).toEqual({
        values: ['authors'],
        total: 1,
        hasMore: false,
      });
      expect((await completion(ref, 'table', 's', { connection_id: 'db', schema })).values).toEqual([
        'sluice_canary',
        'authors',
        'book_titles',
        'books',
      ]);
    }
  });

  it('completes column names from the table in context, prefix matches first', async () => {
    expect(await completion(audit, 'column', 'i', { connection_id: 'db', table: 'books' })).toEqual({
      values: ['id', 'author_id', 'title', 'price'],
      total: 4,
      hasMore: false,
    });
    expect((await completion(audit, 'column', 'N', { connection_id: 'db', schema, table: 'authors' })).values).toEqual([
      'name',
      'born',
    ]);
    expect((await completion(audit, 'column', '', { connection_id: 'db' })).values).toEqual([]);
    expect((await completion(audit, 'column', '', { connection_id: 'db', table: 'nope' })).values).toEqual([]);
    expect((await completion(audit, 'column', '', { table: 'books' })).values).toEqual([]);
  });

  it('completes databases for the schemas template, and the history’s kind and outcome', async () => {
    const schemas = { type: 'ref/resource', uri: 'sluice://connections/{connection_id}/schemas{?database}' };
    expect((await completion(schemas, 'database', fixture.database, { connection_id: 'db' })).values[0]).toBe(fixture.database);
    const historyTemplate = { type: 'ref/resource', uri: 'sluice://connections/{connection_id}/history{?limit,search,kind,outcome}' };
    expect((await completion(historyTemplate, 'kind', 'd', {})).values).toEqual(['ddl', 'destructive', 'read']);
    expect((await completion(historyTemplate, 'outcome', '', {})).values).toEqual(['success', 'error']);
    expect((await completion({ type: 'ref/prompt', name: 'summarize_query_history' }, 'limit', '2', {})).values).toEqual(['200']);
  });

  it('a column of a prompt without one, or an unknown connection in context, is -32602', async () => {
    expectRpcError(await complete({ type: 'ref/prompt', name: 'explain_table' }, 'column', '', { connection_id: 'db' }), 400, -32602, 1);
    const error = expectRpcError(await complete(audit, 'column', '', { connection_id: 'nope', table: 'books' }), 400, -32602, 1);
    expect(error.message).toBe('not_found: no connection with id "nope"; call list_connections');
  });
});

describe('completion caps its values at 100', () => {
  let dir: string;
  let app: TestApp;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-many-'));
    const path = join(dir, 'many.sqlite');
    const db = new Database(path);
    const columns = Array.from({ length: 120 }, (_, i) => `c_${String(i).padStart(3, '0')} INTEGER`).join(', ');
    db.exec(`CREATE TABLE wide (${columns});`);
    for (let i = 0; i < 150; i += 1) db.exec(`CREATE TABLE t_${String(i).padStart(3, '0')} (id INTEGER);`);
    db.exec('CREATE TABLE zt_1 (id INTEGER);');
    db.close();
    const connection = { id: 'many', name: 'Many', engine: 'sqlite', path, externalAccess: 'readOnly', aiPolicy: 'always' };
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ connections: [connection] }));
    app = await startTestApp({ dataDir: dir });
  });
  afterAll(async () => {
    await app?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const complete = async (name: string, value: string, context: Record<string, string>) =>
    expectModernSuccess(
      await mcp(app, 'completion/complete', {
        ref: { type: 'ref/prompt', name: 'data_quality_audit' },
        argument: { name, value },
        context: { arguments: context },
      }),
    ).completion;

  it('tables: the first 100, prefix matches before other matches, with total and hasMore', async () => {
    const all = await complete('table', 't_1', { connection_id: 'many' });
    expect(all.total).toBe(51);
    expect(all.hasMore).toBe(false);
    expect(all.values.slice(0, 2)).toEqual(['t_100', 't_101']);
    expect(all.values.at(-1)).toBe('zt_1');
    const capped = await complete('table', 't', { connection_id: 'many' });
    expect(capped.values).toHaveLength(100);
    expect(capped).toMatchObject({ total: 151, hasMore: true });
    expect(capped.values[0]).toBe('t_000');
  });

  it('columns: the first 100 of 120, with total and hasMore', async () => {
    const capped = await complete('column', 'c_', { connection_id: 'many', table: 'wide' });
    expect(capped.values).toEqual(Array.from({ length: 100 }, (_, i) => `c_${String(i).padStart(3, '0')}`));
    expect(capped).toMatchObject({ total: 120, hasMore: true });
  });
});
