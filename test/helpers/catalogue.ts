import { expect } from 'vitest';
import { resultText } from '../../src/capabilities/resultText.js';
import { unfenced } from './dataFence.js';

/** The tool catalogue (decisions.md): its names, and the answers every client sees of it on the demo database. */

/**
 * The tools a readWrite token sees, in tools/list order: every one but confirm_destructive_operation (which
 * needs admin). They need `tools:read`, plus `tools:write` to write (WRITE_TOOLS always).
 */
export const READ_TOOLS = [
  'list_connections',
  'list_databases',
  'list_schemas',
  'list_tables',
  'describe_table',
  'get_table_ddl',
  'list_indexes',
  'list_foreign_keys',
  'list_views',
  'get_view_definition',
  'list_routines',
  'list_triggers',
  'search_schema',
  'execute_query',
  'explain_query',
  'slow_queries',
  'index_advice',
  'count_rows',
  'table_statistics',
  'database_statistics',
  'database_health',
  'browse_table',
  'export_data',
  'insert_rows',
];

/** The tools among READ_TOOLS that need `tools:write` whatever they are asked (they write a file or rows). */
export const WRITE_TOOLS = ['export_data', 'insert_rows'];

/** What a token without `tools:write` (readOnly, or anonymous with authentication off) sees. */
export const READ_ONLY_TOOLS = READ_TOOLS.filter((name) => !WRITE_TOOLS.includes(name));

export const ALL_TOOLS = [...READ_TOOLS, 'confirm_destructive_operation'];

/**
 * The catalogue answers every MCP client sees on the demo database, whatever its SDK or protocol era:
 * the requests a client suite sends (list_connections, a SELECT through execute_query, the
 * sluice://connections resource, the explain_table prompt, a completion) and the expectations on what
 * comes back. Typed structurally, so that the 1.x and the 2.x TypeScript SDK clients' results both fit.
 */

/** The demo connection as list_connections and sluice://connections describe it. */
export const DEMO_CONNECTION = {
  id: 'demo',
  name: 'Demo bookshop',
  engine: 'sqlite',
  description: 'An embedded SQLite demo: a small online bookshop with books, authors, customers, orders and reviews.',
  external_access: 'readWrite',
  ai_policy: 'askEachTime',
};

/** A `tools/call` result as either SDK types it (the 1.x one adds an index signature and a legacy variant). */
type ToolResult = { isError?: unknown; structuredContent?: unknown; content?: unknown; [key: string]: unknown };

/** `tools/call` of list_connections. */
export const LIST_CONNECTIONS = { name: 'list_connections', arguments: {} };

/** list_connections: the demo connection only, as structured content and as its JSON text. */
export function expectListConnections(result: ToolResult): void {
  expect(result.isError).toBe(false);
  expect(result.structuredContent).toEqual({ connections: [DEMO_CONNECTION] });
  const content = result.content as { type: string; text: string }[];
  expect(content).toHaveLength(1);
  expect(content[0]!.type).toBe('text');
  expect(unfenced(content[0]!.text)).toBe(resultText({ connections: [DEMO_CONNECTION] }));
}

/** `tools/call` of execute_query with a SELECT of the first three genres of demo. */
export const SELECT_GENRES = {
  name: 'execute_query',
  arguments: { connection_id: 'demo', sql: 'SELECT id, name FROM genres ORDER BY id LIMIT 3' },
};

/** execute_query with SELECT_GENRES: the three rows, typed columns, a read statement. */
export function expectSelectGenres(result: ToolResult): void {
  expect(result.isError).toBe(false);
  expect(result.structuredContent).toEqual({
    columns: [
      { name: 'id', type: 'INTEGER' },
      { name: 'name', type: 'TEXT' },
    ],
    rows: [
      [1, 'Literary Fiction'],
      [2, 'Crime'],
      [3, 'Science Fiction'],
    ],
    row_count: 3,
    rows_affected: 0,
    execution_time_ms: expect.any(Number),
    is_truncated: false,
    truncated_reason: 'none',
    cells_truncated: 0,
    statement_kind: 'read',
  });
}

/** `resources/read` of the connections resource. */
export const CONNECTIONS_RESOURCE = { uri: 'sluice://connections' };

/** sluice://connections: one text content, the JSON listing the demo connection inside the data fence. */
export function expectConnectionsResource(result: { contents: unknown }): void {
  const contents = result.contents as { uri: string; mimeType: string; text: string }[];
  expect(contents).toEqual([{ uri: 'sluice://connections', mimeType: 'text/plain', text: expect.any(String) }]);
  expect(unfenced(contents[0]!.text)).toBe(JSON.stringify({ connections: [DEMO_CONNECTION] }));
}

/** `prompts/get` of explain_table for demo.books. */
export const EXPLAIN_BOOKS = { name: 'explain_table', arguments: { connection_id: 'demo', table: 'books' } };

/** explain_table for demo.books: one user message whose text describes the table and its foreign key. */
export function expectExplainBooks(result: {
  description?: string;
  messages: { role: string; content: { type: string; text?: string } }[];
}): void {
  expect(result.description).toBe('The table books of Demo bookshop');
  expect(result.messages).toHaveLength(1);
  expect(result.messages[0]!.role).toBe('user');
  const content = result.messages[0]!.content;
  expect(content.type).toBe('text');
  const text = content.type === 'text' ? (content.text ?? '') : '';
  expect(text.startsWith('Explain the table "books" of the SQLite database "Demo bookshop" (connection_id demo)')).toBe(true);
  expect(text).toContain('Table main.books\n  - id INTEGER PK NOT NULL\n');
  expect(text).toContain('  - (genre_id) → genres(id)\n');
}

/** `completion/complete` of explain_table's connection_id from "de". */
export const COMPLETE_DEMO: { ref: { type: 'ref/prompt'; name: string }; argument: { name: string; value: string } } = {
  ref: { type: 'ref/prompt', name: 'explain_table' },
  argument: { name: 'connection_id', value: 'de' },
};

/** The completion of COMPLETE_DEMO: demo, and nothing more. */
export function expectDemoCompletion(result: { completion: unknown }): void {
  expect(result.completion).toEqual({ values: ['demo'], total: 1, hasMore: false });
}

/**
 * The catalogue requests above on the wire, as `${method} ${JSON-RPC method} ${status}`, in the order the
 * suites send them: list_connections, the SELECT, the resource, the prompt, the completion; one POST each.
 */
export const CATALOGUE_ON_THE_WIRE = [
  'POST tools/call 200',
  'POST tools/call 200',
  'POST resources/read 200',
  'POST prompts/get 200',
  'POST completion/complete 200',
];

/** An approved write of one row: a write statement that affected one row and returned none. */
export function expectApprovedWrite(result: ToolResult): void {
  expect(result.isError).toBe(false);
  expect(result.structuredContent).toMatchObject({ statement_kind: 'write', rows_affected: 1, row_count: 0, rows: [] });
}
