import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as catalogue from '../helpers/catalogue.js';
import { mintToken, MODERN, scalar, startTestApp, type TestApp } from '../helpers/testApp.js';
import { bearerTransportOptions, type Exchange, wireRecorder } from '../helpers/sdkWire.js';

/**
 * Interoperability with the official 2.x TypeScript client (`@modelcontextprotocol/client`), pinned to
 * the modern stateless era (`2026-07-28`), against a real Sluice with authentication on and a readWrite
 * token. Contract: "Request envelope (modern era)", "Required headers (modern era)", "Methods on /mcp",
 * "input_required result", "Input response", "Tool call needing approval"; README "Writes and consent".
 */

const SERVER_INFO = { name: 'sluice', version: '0.1.0' };
const INSERT = "INSERT INTO genres (name) VALUES ('Conformance')";

let app: TestApp;
let token: string;
let client: Client;
const { wire, recordingFetch, sent } = wireRecorder();
const elicitations: unknown[] = [];
/** What the SDK reported through `onerror` (an unparsable message, a failed stream…). */
const clientErrors: Error[] = [];

beforeAll(async () => {
  app = await startTestApp({ auth: true });
  token = mintToken(app, 'sdk modern').plaintext;
  client = new Client(
    { name: 'sdk-modern-suite', version: '2.4.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: MODERN } } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    elicitations.push(request.params);
    return { action: 'accept', content: { approved: true } };
  });
  const transport = new StreamableHTTPClientTransport(new URL(app.url), bearerTransportOptions(token, recordingFetch));
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
    expect(tools.map((tool) => tool.name)).toEqual(catalogue.READ_TOOLS);
    // No admin scope: confirm_destructive_operation is filtered out. Every tool declares its arguments
    // and its output schema, which the client then holds each call's structuredContent to.
    for (const tool of tools) {
      expect([tool.name, tool.inputSchema.type, tool.outputSchema?.type]).toEqual([tool.name, 'object', 'object']);
    }
    expect(nextCursor).toBeUndefined();
  });

  it('calls list_connections', async () => {
    catalogue.expectListConnections(await client.callTool(catalogue.LIST_CONNECTIONS));
  });

  it('calls execute_query with a SELECT on demo', async () => {
    catalogue.expectSelectGenres(await client.callTool(catalogue.SELECT_GENRES));
  });

  it('reads sluice://connections', async () => {
    catalogue.expectConnectionsResource(await client.readResource(catalogue.CONNECTIONS_RESOURCE));
  });

  it('gets the explain_table prompt for demo.books', async () => {
    catalogue.expectExplainBooks(await client.getPrompt(catalogue.EXPLAIN_BOOKS));
  });

  it('completes connection_id of explain_table from "de" to demo', async () => {
    catalogue.expectDemoCompletion(await client.complete(catalogue.COMPLETE_DEMO));
  });

  it('a write is approved through the client’s own input_required handling, and the row exists', async () => {
    const from = wire.length;
    const before = scalar(demoPath(), 'SELECT count(*) FROM genres WHERE name = ?', 'Conformance');
    expect(before).toBe(0);

    catalogue.expectApprovedWrite(await client.callTool({ name: 'execute_query', arguments: { connection_id: 'demo', sql: INSERT } }));

    // The handler saw Sluice's form exactly once.
    expect(elicitations).toEqual([
      {
        mode: 'form',
        message: [
          'sdk-modern-suite (name declared by the client) wants to run a write statement (INSERT changes data) on Demo bookshop (SQLite), with the token sdk modern (readWrite).',
          'Statement, 1 line:',
          "1 | INSERT INTO genres (name) VALUES ('Conformance')",
          // Tried in a transaction that was rolled back: the row it adds, with the id the demo's next genre gets.
          '1 row will change (tried, then rolled back).',
          'Changed rows (- before, + after, * a value that changes):',
          '  | id | name',
          '--+----+--------------',
          '+ | 13 | "Conformance"',
          'It can be undone once it ran (sluice undo, or Undo in the console’s activity).',
          'Approve it only if you expect this change.',
        ].join('\n'),
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
      ...catalogue.CATALOGUE_ON_THE_WIRE,
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
    await auto.connect(new StreamableHTTPClientTransport(new URL(app.url), bearerTransportOptions(token)));
    try {
      expect([auto.getProtocolEra(), auto.getNegotiatedProtocolVersion()]).toEqual(['modern', MODERN]);
      expect(auto.getDiscoverResult()?.supportedVersions).toEqual([MODERN, '2025-11-25', '2025-06-18']);
      const result = await auto.callTool({ name: 'list_connections', arguments: {} });
      expect(result.structuredContent).toEqual({ connections: [catalogue.DEMO_CONNECTION] });
      expect(errors).toEqual([]);
    } finally {
      await auto.close();
    }
  });
});

function demoPath(): string {
  return `${app.dataDir}/demo.sqlite`;
}
