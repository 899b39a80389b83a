import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as catalogue from '../helpers/catalogue.js';
import { mintToken, scalar, startTestApp, type TestApp } from '../helpers/testApp.js';
import { bearerTransportOptions, wireRecorder } from '../helpers/sdkWire.js';

/**
 * Interoperability with the official 1.x TypeScript SDK client (`@modelcontextprotocol/sdk`) over its
 * Streamable HTTP transport: the legacy era (`initialize`, `Mcp-Session-Id`, protocol `2025-11-25`),
 * against a real Sluice with authentication on and a readWrite token sent in `requestInit.headers`.
 * Contract: "Legacy session", "Versioning" rules 3–5, "Events" rule 1, "Result envelope" (legacy results
 * carry no `resultType`, cache hints or `serverInfo`), "Tool call needing approval" (a client without
 * `elicitation` waits on the confirmation dialog).
 */

const LEGACY = '2025-11-25';
const CLIENT_NAME = 'sdk-legacy-suite';
const INSERT = "INSERT INTO genres (name) VALUES ('Legacy conformance')";

let app: TestApp;
let token: string;
let client: Client;
let transport: StreamableHTTPClientTransport;
const { wire, recordingFetch, sent } = wireRecorder();
/** What the SDK reported through `onerror` (a failed GET stream, an unparsable message…). */
const clientErrors: Error[] = [];

/** The JSON-RPC result Sluice sent for the single exchange of `method` since `from`, as it was on the wire. */
async function rawResult(method: string, from: number): Promise<Record<string, unknown>> {
  const exchanges = sent(method, from);
  expect(exchanges).toHaveLength(1);
  const message = JSON.parse(await exchanges[0]!.text);
  expect(Object.keys(message).sort()).toEqual(['id', 'jsonrpc', 'result']);
  return message.result;
}

/** Legacy results have none of `resultType`, cache hints or `serverInfo` (contract, "Versioning" rule 5). */
function expectLegacyShape(result: Record<string, unknown>): void {
  expect(result).not.toHaveProperty('resultType');
  expect(result).not.toHaveProperty('ttlMs');
  expect(result).not.toHaveProperty('cacheScope');
  expect((result._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/serverInfo']).toBeUndefined();
}

beforeAll(async () => {
  app = await startTestApp({ auth: true });
  token = mintToken(app, 'sdk legacy').plaintext;
  client = new Client({ name: CLIENT_NAME, version: '1.32.2' });
  client.onerror = (error) => clientErrors.push(error);
  transport = new StreamableHTTPClientTransport(new URL(app.url), bearerTransportOptions(token, recordingFetch));
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  await app?.dispose();
});

describe('the 1.x client over Streamable HTTP, legacy era 2025-11-25', () => {
  it('initialize: protocolVersion, capabilities (resources.subscribe false), serverInfo, instructions, Mcp-Session-Id', async () => {
    const [initialize] = sent('initialize');
    expect(initialize!.body.params.protocolVersion).toBe(LEGACY);
    expect(initialize!.body.params).not.toHaveProperty('_meta');
    expect(initialize!.status).toBe(200);
    const sessionId = initialize!.responseHeaders.get('mcp-session-id');
    expect(sessionId).toMatch(/^[\x21-\x7e]+$/);
    expect(transport.sessionId).toBe(sessionId);

    const result = await rawResult('initialize', 0);
    expect(Object.keys(result).sort()).toEqual(['capabilities', 'instructions', 'protocolVersion', 'serverInfo']);
    expect(result.protocolVersion).toBe(LEGACY);
    expect(transport.protocolVersion).toBe(LEGACY);

    expect(client.getServerVersion()).toMatchObject({ name: 'sluice', version: '0.1.0' });
    const capabilities = client.getServerCapabilities();
    expect(Object.keys(capabilities ?? {}).sort()).toEqual(['completions', 'logging', 'prompts', 'resources', 'tools']);
    expect(capabilities).toMatchObject({
      tools: { listChanged: false },
      resources: { subscribe: false },
      prompts: { listChanged: false },
      completions: {},
    });
    expect(client.getInstructions()).toMatch(/^Sluice gives you access to the databases/);
    expect(client.getInstructions()).toContain('list_connections');
    expect(client.getInstructions()).toContain('describe_table');
  });

  it('notifications/initialized is accepted with 202; the SDK’s GET stream is refused with 405', async () => {
    const [initialized] = sent('notifications/initialized');
    expect(initialized!.status).toBe(202);
    expect(initialized!.headers['mcp-session-id']).toBe(transport.sessionId);
    // The SDK opens its GET stream after the 202 without waiting for it: wait until it has been answered.
    await expect.poll(() => wire.filter((exchange) => exchange.method === 'GET').length, { timeout: 5_000, interval: 10 }).toBe(1);
    const get = wire.find((exchange) => exchange.method === 'GET')!;
    expect(get.headers).toMatchObject({ accept: 'text/event-stream', 'mcp-session-id': transport.sessionId });
    expect(get.status).toBe(405);
    expect(get.responseHeaders.get('allow')).toBe('POST, OPTIONS');
  });

  it('lists the tools a readWrite token sees, as a legacy result', async () => {
    const from = wire.length;
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(catalogue.READ_TOOLS);
    const raw = await rawResult('tools/list', from);
    expectLegacyShape(raw);
    expect(Object.keys(raw)).toEqual(['tools']);
  });

  it('calls list_connections', async () => {
    const from = wire.length;
    catalogue.expectListConnections(await client.callTool(catalogue.LIST_CONNECTIONS));
    const raw = await rawResult('tools/call', from);
    expectLegacyShape(raw);
    expect(Object.keys(raw).sort()).toEqual(['content', 'isError', 'structuredContent']);
  });

  it('calls execute_query with a SELECT on demo', async () => {
    const from = wire.length;
    catalogue.expectSelectGenres(await client.callTool(catalogue.SELECT_GENRES));
    expectLegacyShape(await rawResult('tools/call', from));
  });

  it('reads sluice://connections, without cache hints', async () => {
    const from = wire.length;
    catalogue.expectConnectionsResource(await client.readResource(catalogue.CONNECTIONS_RESOURCE));
    const raw = await rawResult('resources/read', from);
    expectLegacyShape(raw);
    expect(Object.keys(raw)).toEqual(['contents']);
  });

  it('gets the explain_table prompt for demo.books', async () => {
    const from = wire.length;
    catalogue.expectExplainBooks(await client.getPrompt(catalogue.EXPLAIN_BOOKS));
    expectLegacyShape(await rawResult('prompts/get', from));
  });

  it('completes connection_id of explain_table from "de" to demo', async () => {
    const from = wire.length;
    catalogue.expectDemoCompletion(await client.complete(catalogue.COMPLETE_DEMO));
    expectLegacyShape(await rawResult('completion/complete', from));
  });

  it('a write waits on the confirmation dialog; approved, it runs and reports rows_affected', async () => {
    const demoPath = `${app.dataDir}/demo.sqlite`;
    expect(scalar(demoPath, 'SELECT count(*) FROM genres WHERE name = ?', 'Legacy conformance')).toBe(0);
    expect(app.dialogs.list()).toEqual([]);

    const call = client.callTool({ name: 'execute_query', arguments: { connection_id: 'demo', sql: INSERT } });
    let settled = false;
    void call.then(
      () => (settled = true),
      () => (settled = true),
    );
    await expect.poll(() => app.dialogs.list().length, { timeout: 5_000, interval: 10 }).toBe(1);
    const [dialog] = app.dialogs.list();
    expect(dialog).toEqual({
      id: expect.any(String),
      kind: 'statement',
      clientName: CLIENT_NAME,
      clientNameDeclared: true,
      tokenName: 'sdk legacy',
      tokenLevel: 'readWrite',
      connectionId: 'demo',
      connectionName: 'Demo bookshop',
      engine: 'sqlite',
      database: demoPath,
      tool: 'execute_query',
      statementKind: 'write',
      statementReason: 'INSERT changes data',
      statement: INSERT,
      params: [],
      placeholders: 'positional',
      // Tried in a transaction that was rolled back: the row it would add.
      effect: { rows: 1, basis: 'exact', columns: ['id', 'name'], changes: [{ before: null, after: [expect.any(Number), 'Legacy conformance'] }] },
      // It has a key and nothing escapes to other tables: it can be taken back once it ran.
      undo: { possible: true },
      waitingSeconds: expect.any(Number),
    });
    // Nothing runs while the dialog waits.
    expect(settled).toBe(false);
    expect(scalar(demoPath, 'SELECT count(*) FROM genres WHERE name = ?', 'Legacy conformance')).toBe(0);

    expect(app.dialogs.answer(dialog!.id, 'approve')).toBe(true);
    catalogue.expectApprovedWrite(await call);
    expect(app.dialogs.list()).toEqual([]);
    expect(scalar(demoPath, 'SELECT count(*) FROM genres WHERE name = ?', 'Legacy conformance')).toBe(1);
  });

  it('every later request carried the token, the session id and the legacy version header, and no modern _meta', () => {
    expect(wire.map((exchange) => `${exchange.method} ${exchange.body?.method ?? ''} ${exchange.status}`)).toEqual([
      'POST initialize 200',
      'POST notifications/initialized 202',
      'GET  405',
      'POST tools/list 200',
      ...catalogue.CATALOGUE_ON_THE_WIRE,
      'POST tools/call 200',
    ]);
    for (const { headers, body } of wire.slice(1)) {
      expect(headers.authorization).toBe(`Bearer ${token}`);
      expect(headers['mcp-session-id']).toBe(transport.sessionId);
      expect(headers['mcp-protocol-version']).toBe(LEGACY);
      expect(body?.params?._meta?.['io.modelcontextprotocol/protocolVersion']).toBeUndefined();
    }
    expect(clientErrors).toEqual([]);
  });

  it('terminating the session: DELETE is refused with 405, which the SDK accepts', async () => {
    const from = wire.length;
    const sessionId = transport.sessionId;
    await transport.terminateSession();
    const [del] = wire.slice(from);
    expect(wire.slice(from)).toHaveLength(1);
    expect(del!.method).toBe('DELETE');
    expect(del!.headers['mcp-session-id']).toBe(sessionId);
    expect(del!.status).toBe(405);
    expect(del!.responseHeaders.get('allow')).toBe('POST, OPTIONS');
    expect(transport.sessionId).toBeUndefined();
    expect(clientErrors).toEqual([]);
  });
});
