import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinCapabilities } from '../../src/capabilities/registry.js';
import { CACHE_HINTS, PAGES, TOOL_DECLARATIONS } from '../../src/core/contract.js';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import { ACCEPTED, CONSENT_KEY, ELICITATION_META, repeatToolCall } from '../helpers/consentRoundTrip.js';
import { availableEngines, createFixture, FIXTURE_BOOKS, type EngineFixture } from '../helpers/engines.js';
import type { Engine } from '../../src/db/database.js';
import { expectModernSuccess, expectToolError, expectToolSuccess } from '../helpers/rpcAssertions.js';
import { callTool, mcp, mintToken, type RawResponse, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * Issue 29, item 3: every tool declares its output schema in tools/list, and every schema describes what
 * the tool really returns. Each tool is called on every engine (some more than once, to reach optional
 * fields), and its structuredContent is validated with Ajv — the validator the MCP SDK clients use —
 * against the schema tools/list declared, and against the same schema closed (no property it does not
 * name), so that a field the schema leaves out fails too. A tool an engine does not support answers the
 * `unsupported` tool error, which carries no structuredContent. What a client hands the model of the
 * listing (name, description, input schema) stays within TOOL_DECLARATIONS.modelBytes.
 */

const engines = await availableEngines();

/**
 * What each engine gets on top of the shared fixture: a partial index, a trigger, a routine, a
 * materialized view where it has them, and a table without a primary key (a database_health finding).
 */
const EXTRAS: Record<Engine, string[]> = {
  sqlite: [
    'CREATE TABLE notes (body TEXT)',
    'CREATE INDEX books_cheap_idx ON books (lower(title)) WHERE price < 20',
    "CREATE TRIGGER books_price_check BEFORE INSERT ON books BEGIN SELECT RAISE(ABORT, 'negative price') WHERE NEW.price < 0; END",
  ],
  postgres: [
    'CREATE TABLE notes (body TEXT)',
    'CREATE INDEX books_cheap_idx ON books (lower(title)) WHERE price < 20',
    'CREATE FUNCTION check_price() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$',
    'CREATE TRIGGER books_price_check BEFORE INSERT OR UPDATE ON books FOR EACH ROW EXECUTE FUNCTION check_price()',
    'CREATE MATERIALIZED VIEW author_totals AS SELECT author_id, count(*) AS books FROM books GROUP BY author_id',
  ],
  mysql: [
    'CREATE TABLE notes (body TEXT)',
    'CREATE TRIGGER books_price_check BEFORE INSERT ON books FOR EACH ROW SET NEW.price = GREATEST(NEW.price, 0)',
    'CREATE FUNCTION book_count(author INT) RETURNS INT READS SQL DATA RETURN (SELECT COUNT(*) FROM books WHERE author_id = author)',
  ],
  duckdb: ['CREATE MACRO add_one(i) AS i + 1'],
};

/**
 * After the rows are added: PostgreSQL's statistics then show books read by a full scan more often than
 * through an index, which index_advice without a statement lists.
 */
const WORKLOAD: Record<Engine, string[]> = {
  sqlite: [],
  postgres: ['SELECT count(*) FROM books WHERE price > 5', 'SELECT pg_stat_force_next_flush()'],
  mysql: [],
  duckdb: [],
};

/** Books added so that a full scan of books is worth an index (index_advice then suggests one). */
const ADDED_BOOKS = 1_500;

const placeholder = (engine: Engine) => (engine === 'postgres' || engine === 'duckdb' ? '$1' : '?');

/** Forty copies of the title: wider than a 1 KiB answer, so that columns are left out. */
const WIDE_SELECT = `SELECT ${Array.from({ length: 40 }, (_, i) => `title AS c${i}`).join(', ')} FROM books`;

type Call = { label: string; tool: string; args: Record<string, unknown> };

/** The calls made on each engine (connection_id added), at least one per tool. */
function callsOn(engine: Engine, exportDir: string): Call[] {
  const p = placeholder(engine);
  const call = (tool: string, args: Record<string, unknown> = {}, label = tool): Call => ({ label, tool, args });
  return [
    call('list_connections'),
    call('list_databases'),
    call('list_schemas'),
    call('list_tables'),
    call('describe_table', { table: 'books' }),
    call('get_table_ddl', { table: 'books' }),
    call('list_indexes'),
    call('list_foreign_keys', { table: 'books' }),
    call('list_views'),
    call('get_view_definition', { view: 'book_titles' }),
    call('list_routines'),
    call('list_triggers'),
    call('search_schema', { query: 'author' }),
    call('execute_query', { sql: 'SELECT * FROM books ORDER BY id', max_rows: 5 }),
    call('execute_query', { sql: WIDE_SELECT, max_bytes: 1_024 }, 'execute_query (columns left out)'),
    call('execute_query', { sql: 'UPDATE authors SET born = 1930 WHERE id = 1' }, 'execute_query (a consented write)'),
    call('explain_query', { sql: `SELECT id FROM books WHERE author_id = ${p}`, params: [2] }),
    call('explain_query', { sql: `SELECT id FROM books WHERE author_id = ${p}`, params: [2], analyze: true }, 'explain_query (analyze)'),
    call('slow_queries'),
    call('index_advice', { sql: `SELECT * FROM books WHERE title = ${p}`, params: ['Book 07'] }),
    call('index_advice', {}, 'index_advice (the workload)'),
    call('count_rows', { table: 'books' }),
    call('count_rows', { table: 'books', exact: true }, 'count_rows (exact)'),
    call('table_statistics'),
    call('database_statistics'),
    call('database_health'),
    call('browse_table', { table: 'books', limit: 3 }),
    call('export_data', { sql: 'SELECT id, title FROM books', format: 'csv', path: join(exportDir, `books-${engine}.csv`) }),
    call('insert_rows', { table: 'authors', rows: [{ id: 100, name: 'Schema Checks', born: 2000 }] }),
    call('confirm_destructive_operation', { sql: 'DELETE FROM sluice_canary' }),
  ];
}

/** The calls each engine answers with the `unsupported` tool error (docs/catalogue.md). */
const UNSUPPORTED: Record<Engine, string[]> = {
  sqlite: ['explain_query (analyze)', 'slow_queries', 'index_advice (the workload)'],
  postgres: [],
  mysql: ['index_advice (the workload)'],
  duckdb: [
    'explain_query (analyze)',
    'slow_queries',
    'index_advice',
    'index_advice (the workload)',
    'table_statistics',
    'database_statistics',
    'database_health',
  ],
};

/** Lists that hold items, so that the schema of an item is exercised too (the call's label → the list). */
const FILLED: Record<string, string> = {
  list_indexes: 'indexes',
  list_foreign_keys: 'outgoing',
  list_views: 'views',
  list_routines: 'routines',
  list_triggers: 'triggers',
  search_schema: 'matches',
  index_advice: 'suggestions',
  'index_advice (the workload)': 'scanned_tables',
  table_statistics: 'tables',
  database_health: 'findings',
};

/** The FILLED lists an engine leaves empty: SQLite has no routines, DuckDB no triggers. */
const EMPTY: Record<Engine, string[]> = { sqlite: ['list_routines'], postgres: [], mysql: [], duckdb: ['list_triggers'] };

/** The schema with every object closed (`additionalProperties: false`): a property it does not name fails. */
function closed(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === 'properties' ? closedProperties(value) : closed(value)]));
  if ('properties' in schema) out.additionalProperties = false;
  return out;
}
const closedProperties = (properties: unknown) =>
  Object.fromEntries(Object.entries(properties as Record<string, unknown>).map(([name, schema]) => [name, closed(schema)]));

type Declared = { name: string; description: string; inputSchema: unknown; outputSchema: Record<string, unknown> };

/** Validators of each declared output schema, as listed and closed. Ajv in strict mode also refuses a schema with an unknown keyword. */
function validatorsOf(tools: Declared[]): Map<string, { listed: ValidateFunction; closed: ValidateFunction }> {
  const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
  return new Map(tools.map((tool) => [tool.name, { listed: ajv.compile(tool.outputSchema), closed: ajv.compile(closed(tool.outputSchema) as object) }]));
}

const exportDir = mkdtempSync(join(tmpdir(), 'sluice-output-schemas-'));
afterAll(() => rmSync(exportDir, { recursive: true, force: true }));

describe('tools/list for a full-access token', () => {
  let app: TestApp;
  let result: Record<string, any>;

  beforeAll(async () => {
    app = await startTestApp({ auth: true });
    result = expectModernSuccess(await mcp(app, 'tools/list', {}, { headers: mintToken(app, 'full access', 'fullAccess').headers }));
  });
  afterAll(() => app?.dispose());

  it('declares every tool, on one page, with the cache hint of tools/list', () => {
    expect((result.tools as Declared[]).map((tool) => tool.name)).toEqual(builtinCapabilities.tools.map((tool) => tool.name));
    expect(result.tools.length).toBeLessThanOrEqual(PAGES.pageSize);
    expect(result.nextCursor).toBeUndefined();
    expect({ ttlMs: result.ttlMs, cacheScope: result.cacheScope }).toEqual(CACHE_HINTS['tools/list']);
  });

  it('declares each tool’s whole output schema, an object schema Ajv compiles', () => {
    for (const tool of builtinCapabilities.tools) {
      const declared = (result.tools as Declared[]).find((listed) => listed.name === tool.name);
      expect(declared?.outputSchema, tool.name).toEqual(tool.outputSchema);
      expect(declared?.outputSchema.type, tool.name).toBe('object');
    }
    expect(() => validatorsOf(result.tools)).not.toThrow();
  });

  it(`what a client hands the model (name, description, input schema of every tool) is at most ${TOOL_DECLARATIONS.modelBytes} bytes`, () => {
    const forTheModel = (result.tools as Declared[]).map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
    const bytes = Buffer.byteLength(JSON.stringify(forTheModel));
    console.log(`tools/list for the model: ${bytes} bytes for ${forTheModel.length} tools; the whole listing ${Buffer.byteLength(JSON.stringify(result.tools))} bytes`);
    expect(bytes).toBeLessThanOrEqual(TOOL_DECLARATIONS.modelBytes);
  });
});

describe.each(engines)('every tool’s structuredContent on %s matches its declared output schema', (engine) => {
  let fixture: EngineFixture;
  let app: TestApp;
  let dataDir: string;
  let headers: Record<string, string>;
  let validators: ReturnType<typeof validatorsOf>;

  beforeAll(async () => {
    fixture = await createFixture(engine);
    for (const sql of EXTRAS[engine]) await fixture.query(sql);
    for (let start = 0; start < ADDED_BOOKS; start += 500) {
      const ids = Array.from({ length: 500 }, (_, i) => FIXTURE_BOOKS + 1 + start + i);
      await fixture.query(`INSERT INTO books (id, author_id, title, price) VALUES ${ids.map((id) => `(${id}, 1, 'Extra ${id}', 9.99)`).join(', ')}`);
    }
    await fixture.query(engine === 'mysql' ? 'ANALYZE TABLE books' : 'ANALYZE');
    for (const sql of WORKLOAD[engine]) await fixture.query(sql);
    dataDir = mkdtempSync(join(tmpdir(), `sluice-output-schemas-${engine}-`));
    writeConfig(dataDir, { connections: [fixture.connection] });
    app = await startTestApp({ dataDir, auth: true });
    headers = mintToken(app, `${engine} output schemas`, 'fullAccess').headers;
    validators = validatorsOf(expectModernSuccess(await mcp(app, 'tools/list', {}, { headers })).tools);
  });
  afterAll(async () => {
    await app?.dispose();
    await fixture?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The call, its consent given when it asks for one. */
  async function consentedCall({ tool, args }: Call): Promise<RawResponse> {
    const withConnection = tool === 'list_connections' ? args : { connection_id: 'db', ...args };
    const options = { headers, extraMeta: ELICITATION_META };
    const res = await callTool(app, tool, withConnection, options);
    if (res.json.result?.resultType !== 'input_required') return res;
    const roundTrip = { requestState: res.json.result.requestState, inputResponses: { [CONSENT_KEY]: ACCEPTED } };
    return repeatToolCall(app, tool, withConnection, roundTrip, options);
  }

  const calls = callsOn(engine, exportDir);

  it('calls every tool', () => {
    expect([...new Set(calls.map((call) => call.tool))].sort()).toEqual(builtinCapabilities.tools.map((tool) => tool.name).sort());
  });

  it.each(calls.map((call) => [call.label, call] as const))('%s', async (label, call) => {
    const res = await consentedCall(call);
    if (UNSUPPORTED[engine].includes(label)) {
      expectToolError(res, 'unsupported');
      return;
    }
    expect(res.json.result?.isError, JSON.stringify(res.json.result?.content)).toBe(false);
    const structured = expectToolSuccess(res);
    const validate = validators.get(call.tool)!;
    expect(validate.listed(structured) ? [] : validate.listed.errors, `${label}: ${JSON.stringify(structured)}`).toEqual([]);
    expect(validate.closed(structured) ? [] : validate.closed.errors, `${label}: ${JSON.stringify(structured)}`).toEqual([]);
    if (label === 'execute_query (columns left out)') expect(structured.columns_left_out).toBeGreaterThan(0);
    if (FILLED[label] && !EMPTY[engine].includes(label)) expect(structured[FILLED[label]].length, label).toBeGreaterThan(0);
  });
});
