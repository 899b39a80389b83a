import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinCapabilities } from '../../src/capabilities/registry.js';
import { validateArguments } from '../../src/capabilities/schema.js';
import { ACCEPTED, CONSENT_KEY, ELICITATION_META, repeatToolCall } from '../helpers/consentRoundTrip.js';
import { expectToolSuccess } from '../helpers/rpcAssertions.js';
import { callTool, mintToken, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * `tools/list` leaves output schemas out (fewest tokens), so the code's full output schemas are held to
 * real results here: every tool, called on the demo database, returns `structuredContent` its schema
 * accepts, and its text is the compact rendering of it (expectToolSuccess).
 */

const exportDir = mkdtempSync(join(tmpdir(), 'sluice-output-schemas-'));

/** One real call per tool on the demo bookshop. */
const CALLS: Record<string, Record<string, unknown>> = {
  list_connections: {},
  list_databases: { connection_id: 'demo' },
  list_schemas: { connection_id: 'demo' },
  list_tables: { connection_id: 'demo' },
  describe_table: { connection_id: 'demo', table: 'books' },
  get_table_ddl: { connection_id: 'demo', table: 'books' },
  list_indexes: { connection_id: 'demo', table: 'books' },
  list_foreign_keys: { connection_id: 'demo', table: 'books' },
  list_views: { connection_id: 'demo' },
  get_view_definition: { connection_id: 'demo', view: 'order_totals' },
  list_routines: { connection_id: 'demo' },
  list_triggers: { connection_id: 'demo' },
  search_schema: { connection_id: 'demo', query: 'title' },
  execute_query: { connection_id: 'demo', sql: 'SELECT id, title, price_cents FROM books ORDER BY id', max_rows: 5 },
  explain_query: { connection_id: 'demo', sql: 'SELECT * FROM books WHERE id = ?', params: [1] },
  slow_queries: undefined as never,
  index_advice: { connection_id: 'demo', sql: 'SELECT * FROM books WHERE title = ?', params: ['Dune'] },
  count_rows: { connection_id: 'demo', table: 'books' },
  table_statistics: { connection_id: 'demo', table: 'books' },
  database_statistics: { connection_id: 'demo' },
  database_health: { connection_id: 'demo' },
  browse_table: { connection_id: 'demo', table: 'books', limit: 3 },
  export_data: { connection_id: 'demo', sql: 'SELECT id, title FROM books', format: 'csv', path: join(exportDir, 'books.csv') },
  insert_rows: { connection_id: 'demo', table: 'genres', rows: [{ id: 9001, name: 'Schema checks' }] },
  confirm_destructive_operation: { connection_id: 'demo', sql: 'DELETE FROM reviews' },
};

describe('every tool’s structuredContent matches its full output schema', () => {
  let app: TestApp;
  let headers: Record<string, string>;

  beforeAll(async () => {
    app = await startTestApp({ auth: true });
    headers = mintToken(app, 'output schemas', 'fullAccess').headers;
  });
  afterAll(async () => {
    await app?.dispose();
    rmSync(exportDir, { recursive: true, force: true });
  });

  // slow_queries is `unsupported` on SQLite: its shape is checked on PostgreSQL in performanceTools.test.ts.
  const tools = builtinCapabilities.tools.filter((tool) => tool.name !== 'slow_queries');

  it('covers every tool but slow_queries', () => {
    expect(Object.keys(CALLS).sort()).toEqual(builtinCapabilities.tools.map((tool) => tool.name).sort());
  });

  it.each(tools.map((tool) => [tool.name, tool] as const))('%s', async (name, tool) => {
    const args = CALLS[name] as Record<string, unknown>;
    let res = await callTool(app, name, args, { headers, extraMeta: ELICITATION_META });
    if (res.json.result?.resultType === 'input_required') {
      const roundTrip = { requestState: res.json.result.requestState, inputResponses: { [CONSENT_KEY]: ACCEPTED } };
      res = await repeatToolCall(app, name, args, roundTrip, { headers, extraMeta: ELICITATION_META });
    }
    expect(res.json.result?.isError, JSON.stringify(res.json.result?.content)).toBe(false);
    const structured = expectToolSuccess(res);
    expect(() => validateArguments(tool.outputSchema, structured)).not.toThrow();
  });
});
