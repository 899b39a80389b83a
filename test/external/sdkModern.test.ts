import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_TOOLS } from '../helpers/catalogue.js';
import { scalar } from '../helpers/consentRoundTrip.js';
import { MODERN, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * Interoperability with the official 2.x TypeScript client (`@modelcontextprotocol/client`), pinned to
 * the modern stateless era (`2026-07-28`), against a real Sluice with authentication on and a readWrite
 * token. Contract: "Request envelope (modern era)", "Required headers (modern era)", "Methods on /mcp",
 * "input_required result", "Input response", "Tool call needing approval"; README "Writes and consent".
 */

const SERVER_INFO = { name: 'sluice', version: '0.1.0' };
const DEMO_CONNECTION = {
  id: 'demo',
  name: 'Demo bookshop',
  engine: 'sqlite',
  description: 'An embedded SQLite demo: a small online bookshop with books, authors, customers, orders and reviews.',
  external_access: 'readWrite',
  ai_policy: 'askEachTime',
};
const INSERT = "INSERT INTO genres (name) VALUES ('Conformance')";

/** One HTTP exchange as the SDK's transport made it; `text` is the response body, read on a clone. */
type Exchange = { method: string; headers: Record<string, string>; body: any; status: number; contentType: string; text: Promise<string> };

let app: TestApp;
let token: string;
let client: Client;
const wire: Exchange[] = [];
const elicitations: unknown[] = [];
/** What the SDK reported through `onerror` (an unparsable message, a failed stream…). */
const clientErrors: Error[] = [];

/** A `fetch` that records what the SDK sends and what Sluice answers (the body is left for the SDK). */
async function recordingFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  wire.push({
    method: init?.method ?? 'GET',
    headers: Object.fromEntries(new Headers(init?.headers).entries()),
    body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    text: response.clone().text(),
  });
  return response;
}

/** The exchanges since `from` (an index into `wire`), for the request bodies whose method is `method`. */
function sent(method: string, from = 0): Exchange[] {
  return wire.slice(from).filter((exchange) => exchange.body?.method === method);
}

beforeAll(async () => {
  app = await startTestApp({ auth: true });
  token = app.tokens.mint({
    name: 'sdk modern',
    level: 'readWrite',
    connections: 'all',
    expiresInDays: null,
    now: Date.now(),
  }).plaintext;
  client = new Client(
    { name: 'sdk-modern-suite', version: '2.4.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: MODERN } } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    elicitations.push(request.params);
    return { action: 'accept', content: { approved: true } };
  });
  const transport = new StreamableHTTPClientTransport(new URL(app.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: recordingFetch,
  });
  client.onerror = (error) => clientErrors.push(error);
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  await app?.dispose();
});

describe('the 2.x client, pinned to 2026-07-28', () => {
  it('connects through server/discover: modern era, Sluice’s capabilities, serverInfo and instructions', () => {
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(client.getServerVersion()).toEqual({ ...SERVER_INFO, title: 'Sluice', websiteUrl: expect.any(String) });
    expect(client.getServerCapabilities()).toEqual({
      tools: { listChanged: false },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: false },
      completions: {},
      extensions: {},
    });
    expect(client.getInstructions()).toMatch(/^Sluice gives you access to the databases/);
    const discover = sent('server/discover');
    expect(discover).toHaveLength(1);
    expect(discover[0]!.status).toBe(200);
    expect(discover[0]!.headers).toMatchObject({ authorization: `Bearer ${token}`, 'mcp-method': 'server/discover' });
  });

  it('lists the tools a readWrite token sees', async () => {
    const { tools, nextCursor } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(READ_TOOLS);
    // No admin scope: confirm_destructive_operation is filtered out. Every tool keeps both schemas, which
    // the SDK compiles to validate structuredContent (it did, for the calls below).
    for (const tool of tools) {
      expect([tool.name, tool.inputSchema.type, tool.outputSchema?.type]).toEqual([tool.name, 'object', 'object']);
    }
    expect(nextCursor).toBeUndefined();
  });

  it('calls list_connections', async () => {
    const result = await client.callTool({ name: 'list_connections', arguments: {} });
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual({ connections: [DEMO_CONNECTION] });
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ connections: [DEMO_CONNECTION] }) }]);
  });

  it('calls execute_query with a SELECT on demo', async () => {
    const result = await client.callTool({
      name: 'execute_query',
      arguments: { connection_id: 'demo', sql: 'SELECT id, name FROM genres ORDER BY id LIMIT 3' },
    });
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
      statement_kind: 'read',
    });
  });

  it('reads sluice://connections', async () => {
    const result = await client.readResource({ uri: 'sluice://connections' });
    expect(result.contents).toEqual([
      { uri: 'sluice://connections', mimeType: 'application/json', text: JSON.stringify({ connections: [DEMO_CONNECTION] }) },
    ]);
  });

  it('gets the explain_table prompt for demo.books', async () => {
    const result = await client.getPrompt({ name: 'explain_table', arguments: { connection_id: 'demo', table: 'books' } });
    expect(result.description).toBe('The table books of Demo bookshop');
    expect(result.messages).toHaveLength(1);
    expect(result.messages[0]!.role).toBe('user');
    expect(result.messages[0]!.content.type).toBe('text');
    const text = (result.messages[0]!.content as { text: string }).text;
    expect(text.startsWith('Explain the table "books" of the sqlite database "Demo bookshop" (connection_id demo)')).toBe(true);
    expect(text).toContain('Table main.books\n  - id INTEGER PK NOT NULL\n');
    expect(text).toContain('  - (genre_id) → genres(id)\n');
  });

  it('completes connection_id of explain_table from "de" to demo', async () => {
    const result = await client.complete({
      ref: { type: 'ref/prompt', name: 'explain_table' },
      argument: { name: 'connection_id', value: 'de' },
    });
    expect(result.completion).toEqual({ values: ['demo'], total: 1, hasMore: false });
  });

  it('a write is approved through the client’s own input_required handling, and the row exists', async () => {
    const from = wire.length;
    const before = scalar(demoPath(), 'SELECT count(*) FROM genres WHERE name = ?', 'Conformance');
    expect(before).toBe(0);

    const result = await client.callTool({ name: 'execute_query', arguments: { connection_id: 'demo', sql: INSERT } });
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({ statement_kind: 'write', rows_affected: 1, row_count: 0, rows: [] });

    // The handler saw Sluice's form exactly once.
    expect(elicitations).toEqual([
      {
        mode: 'form',
        message: 'sdk-modern-suite wants to run a write statement on Demo bookshop. Approve it only if you expect this change.',
        requestedSchema: {
          type: 'object',
          properties: { approved: { type: 'boolean', title: 'Approve this statement', description: INSERT } },
          required: ['approved'],
        },
      },
    ]);

    // On the wire: the first call, then the same call with requestState and the handler's answer.
    const calls = sent('tools/call', from);
    expect(calls).toHaveLength(2);
    const [first, second] = calls as [Exchange, Exchange];
    expect(first.body.params).not.toHaveProperty('requestState');
    expect(first.body.params).not.toHaveProperty('inputResponses');
    expect(first.body.params._meta['io.modelcontextprotocol/clientCapabilities']).toMatchObject({ elicitation: {} });
    expect(second.body.params.name).toBe('execute_query');
    expect(second.body.params.arguments).toEqual(first.body.params.arguments);
    // The SDK echoed Sluice's requestState byte for byte.
    const inputRequired = JSON.parse(await first.text).result;
    expect(inputRequired.resultType).toBe('input_required');
    expect(Object.keys(inputRequired.inputRequests)).toEqual(['approve_statement']);
    expect(second.body.params.requestState).toBe(inputRequired.requestState);
    expect(second.body.params.inputResponses).toEqual({ approve_statement: { action: 'accept', content: { approved: true } } });
    expect(second.body.id).not.toEqual(first.body.id);
    expect([first.status, second.status]).toEqual([200, 200]);

    expect(scalar(demoPath(), 'SELECT count(*) FROM genres WHERE name = ?', 'Conformance')).toBe(1);
    const check = await client.callTool({
      name: 'execute_query',
      arguments: { connection_id: 'demo', sql: "SELECT count(*) AS n FROM genres WHERE name = 'Conformance'" },
    });
    expect((check.structuredContent as { rows: unknown[][] }).rows).toEqual([[1]]);
  });

  it('stateless on the wire: only POSTs, each with the token, the modern version header, the mirrored method and _meta', () => {
    expect(wire.map((exchange) => `${exchange.method} ${exchange.body?.method} ${exchange.status}`)).toEqual([
      'POST server/discover 200',
      'POST tools/list 200',
      'POST tools/call 200',
      'POST tools/call 200',
      'POST resources/read 200',
      'POST prompts/get 200',
      'POST completion/complete 200',
      'POST tools/call 200',
      'POST tools/call 200',
      'POST tools/call 200',
    ]);
    for (const { headers, body, contentType } of wire) {
      expect(headers.authorization).toBe(`Bearer ${token}`);
      expect(headers['mcp-protocol-version']).toBe(MODERN);
      expect(headers['mcp-method']).toBe(body.method);
      expect(headers).not.toHaveProperty('mcp-session-id');
      expect(contentType).toBe('application/json');
      expect(body.params._meta).toMatchObject({
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
        'io.modelcontextprotocol/clientInfo': { name: 'sdk-modern-suite', version: '2.4.0' },
      });
    }
    expect(clientErrors).toEqual([]);
  });
});

describe('the 2.x client in auto negotiation', () => {
  it('probes with server/discover and settles on the modern era too', async () => {
    const auto = new Client({ name: 'sdk-auto-suite', version: '2.4.0' }, { versionNegotiation: { mode: 'auto' } });
    const errors: Error[] = [];
    auto.onerror = (error) => errors.push(error);
    await auto.connect(
      new StreamableHTTPClientTransport(new URL(app.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    );
    try {
      expect([auto.getProtocolEra(), auto.getNegotiatedProtocolVersion()]).toEqual(['modern', MODERN]);
      expect(auto.getDiscoverResult()?.supportedVersions).toEqual([MODERN, '2025-11-25', '2025-06-18']);
      const result = await auto.callTool({ name: 'list_connections', arguments: {} });
      expect(result.structuredContent).toEqual({ connections: [DEMO_CONNECTION] });
      expect(errors).toEqual([]);
    } finally {
      await auto.close();
    }
  });
});

function demoPath(): string {
  return `${app.dataDir}/demo.sqlite`;
}
