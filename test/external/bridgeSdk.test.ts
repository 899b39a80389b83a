import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as catalogue from '../helpers/catalogue.js';
import { SLUICE_BIN } from '../helpers/cli.js';
import { eventually } from '../helpers/polling.js';
import { MODERN, scalar, startTestApp, type TestApp } from '../helpers/testApp.js';
import { busyQueryProcesses, queryProcesses } from '../helpers/queryProcesses.js';

/**
 * The official SDK stdio clients driving `sluice bridge` against a real Sluice with authentication on
 * (the bridge authenticates with the handshake's bridge token): `@modelcontextprotocol/sdk` 1.x
 * `StdioClientTransport` in the initialize era, and the 2.x client both in its default (initialize) mode
 * and pinned to 2026-07-28. Issue 7, items 2–4 and 6.
 */

const SLOW_SQL =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 500000000) SELECT count(*) FROM c';

let app: TestApp;
const clients: Array<{ close(): Promise<void> }> = [];

const bridgeCommand = () => ({ command: process.execPath, args: [SLUICE_BIN, 'bridge', '--data-dir', app.dataDir], stderr: 'pipe' as const });
const genreCount = (name: string) => scalar(`${app.dataDir}/demo.sqlite`, 'SELECT count(*) FROM genres WHERE name = ?', name);
const insertGenre = (name: string) => ({
  name: 'execute_query',
  arguments: { connection_id: 'demo', sql: `INSERT INTO genres (name) VALUES ('${name}')` },
});

async function connectV1(name: string, capabilities: Record<string, unknown> = {}): Promise<ClientV1> {
  const client = new ClientV1({ name, version: '1.32.2' }, { capabilities });
  await client.connect(new StdioTransportV1(bridgeCommand()));
  clients.push(client);
  return client;
}

beforeAll(async () => {
  app = await startTestApp({ auth: true });
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await app?.dispose();
});

describe('@modelcontextprotocol/sdk 1.x over StdioClientTransport', () => {
  let client: ClientV1;
  const elicitations: unknown[] = [];

  beforeAll(async () => {
    client = await connectV1('sdk1-stdio', { elicitation: {} });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicitations.push(request.params);
      return { action: 'accept', content: { approved: true } };
    });
  });

  it('initializes at 2025-11-25 with the capabilities, serverInfo and instructions the bridge took from server/discover', () => {
    expect(client.getServerVersion()).toEqual({ name: 'sluice', title: 'Sluice', version: '0.1.0', websiteUrl: expect.any(String) });
    expect(client.getServerCapabilities()).toEqual({
      tools: { listChanged: false },
      resources: { subscribe: false, listChanged: false },
      prompts: { listChanged: false },
      completions: {},
      logging: {},
    });
    expect(client.getInstructions()).toMatch(/^Sluice gives you access to the databases/);
  });

  it('lists the tools of the bridge token (readWrite) and calls them', async () => {
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(catalogue.READ_TOOLS);
    catalogue.expectListConnections(await client.callTool(catalogue.LIST_CONNECTIONS));
    catalogue.expectSelectGenres(await client.callTool(catalogue.SELECT_GENRES));
  });

  it('reads a resource, gets a prompt and completes an argument', async () => {
    catalogue.expectConnectionsResource(await client.readResource(catalogue.CONNECTIONS_RESOURCE));
    catalogue.expectExplainBooks(await client.getPrompt(catalogue.EXPLAIN_BOOKS));
    catalogue.expectDemoCompletion(await client.complete(catalogue.COMPLETE_DEMO));
  });

  it('receives execute_query progress as the statement runs', async () => {
    const progress: number[] = [];
    const sql = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT count(*) FROM c';
    const result = await client.callTool({ name: 'execute_query', arguments: { connection_id: 'demo', sql } }, undefined, {
      onprogress: ({ progress: value }) => progress.push(value),
    });
    expect((result.structuredContent as { rows: unknown[][] }).rows).toEqual([[3_000_000]]);
    // The SDK runs notification handlers a microtask after reading them but settles a response at once, so
    // the 1.0 frame, written just before the response, may land in the same read and reach a finished call.
    // (test/e2e/bridge.test.ts shows all three frames on stdout, in order, before the response.)
    expect(progress.slice(0, 2)).toEqual([0, 0.3]);
  });

  it('a consented write: input_required relayed as elicitation/create, answered by its handler, and the row exists', async () => {
    expect(genreCount('Stdio v1')).toBe(0);
    catalogue.expectApprovedWrite(await client.callTool(insertGenre('Stdio v1')));
    expect(elicitations).toEqual([
      {
        mode: 'form',
        message: [
          'sdk1-stdio (name declared by the client) wants to run a write statement (INSERT changes data) on Demo bookshop (SQLite), with the token stdio bridge (readWrite).',
          'Statement, 1 line:',
          "1 | INSERT INTO genres (name) VALUES ('Stdio v1')",
          // Tried in a transaction that was rolled back: the row it adds, with the id the demo's next genre gets.
          '1 row will change (tried, then rolled back).',
          'Changed rows (- before, + after, * a value that changes):',
          '  | id | name',
          '--+----+-----------',
          '+ | 13 | "Stdio v1"',
          'It can be undone once it ran (sluice undo, or Undo in the console’s activity).',
          'Approve it only if you expect this change.',
        ].join('\n'),
        requestedSchema: {
          type: 'object',
          properties: {
            approved: { type: 'boolean', title: 'Approve this statement', description: "INSERT INTO genres (name) VALUES ('Stdio v1')" },
          },
          required: ['approved'],
        },
      },
    ]);
    expect(genreCount('Stdio v1')).toBe(1);
  });

  it('an aborted call sends notifications/cancelled through the bridge, and the query stops', async () => {
    const abort = new AbortController();
    const call = client.callTool({ name: 'execute_query', arguments: { connection_id: 'demo', sql: SLOW_SQL } }, undefined, {
      signal: abort.signal,
      onprogress: () => {},
    });
    const running = await eventually(() => busyQueryProcesses()[0], 'the slow query process');
    abort.abort('changed my mind');
    await expect(call).rejects.toThrow();
    await expect.poll(queryProcesses, { timeout: 2_000, interval: 50 }).not.toContain(running);
    // The connection is unharmed.
    catalogue.expectListConnections(await client.callTool(catalogue.LIST_CONNECTIONS));
  });

  it('a client without elicitation waits on the confirmation dialog', async () => {
    const plain = await connectV1('sdk1-no-elicitation');
    const call = plain.callTool(insertGenre('Stdio dialog'));
    const dialog = await eventually(() => app.dialogs.list()[0], 'the confirmation dialog');
    expect(dialog).toMatchObject({ clientName: 'sdk1-no-elicitation', statement: "INSERT INTO genres (name) VALUES ('Stdio dialog')" });
    app.dialogs.answer(dialog.id, 'approve');
    catalogue.expectApprovedWrite(await call);
    expect(genreCount('Stdio dialog')).toBe(1);
  });
});

describe('@modelcontextprotocol/client 2.x over its StdioClientTransport', () => {
  /** A 2.x client that declares elicitation and accepts every form, recording what it was asked. */
  async function connectV2(name: string, options: ConstructorParameters<typeof ClientV2>[1]) {
    const client = new ClientV2({ name, version: '2.4.0' }, { ...options, capabilities: { elicitation: {} } });
    const asked: unknown[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { approved: true } };
    });
    await client.connect(new StdioTransportV2(bridgeCommand()));
    clients.push(client);
    return { client, asked };
  }

  it('in its default (initialize) mode: a consented write through the elicitation relay', async () => {
    const { client, asked } = await connectV2('sdk2-stdio-legacy', {});
    expect([client.getProtocolEra(), client.getNegotiatedProtocolVersion()]).toEqual(['legacy', '2025-11-25']);
    catalogue.expectListConnections(await client.callTool(catalogue.LIST_CONNECTIONS));
    catalogue.expectApprovedWrite(await client.callTool(insertGenre('Stdio v2 legacy')));
    expect(asked).toHaveLength(1);
    expect(genreCount('Stdio v2 legacy')).toBe(1);
  });

  it('pinned to 2026-07-28: discovers through the bridge, and answers input_required with its own repeated call', async () => {
    const { client, asked } = await connectV2('sdk2-stdio-modern', { versionNegotiation: { mode: { pin: MODERN } } });
    expect([client.getProtocolEra(), client.getNegotiatedProtocolVersion()]).toEqual(['modern', MODERN]);
    expect(client.getServerCapabilities()).toMatchObject({ resources: { subscribe: true, listChanged: true } });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(catalogue.READ_TOOLS);
    catalogue.expectApprovedWrite(await client.callTool(insertGenre('Stdio v2 modern')));
    expect(asked).toEqual([expect.objectContaining({ mode: 'form', requestedSchema: expect.objectContaining({ required: ['approved'] }) })]);
    expect(genreCount('Stdio v2 modern')).toBe(1);
  });
});
