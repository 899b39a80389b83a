import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startApp } from '../../src/app/app.js';
import { readHandshake } from '../../src/core/handshake.js';
import { exited, SLUICE_BIN } from '../helpers/cli.js';
import { ACCEPTED } from '../helpers/consentRoundTrip.js';
import { eventually } from '../helpers/polling.js';
import { mintToken, MODERN, modernMeta, scalar, startTestApp, type TestApp } from '../helpers/testApp.js';
import { busyQueryProcesses, queryProcesses } from '../helpers/queryProcesses.js';

/**
 * `sluice bridge` against a real Sluice with authentication on (issue 7; contract "Versioning" rule 6,
 * "Cancellation", "Tool call needing approval"). Each test drives the bridge's stdin line by line and
 * reads its stdout, which must hold nothing but JSON-RPC messages.
 */

type Message = Record<string, any>;

/**
 * `sluice bridge` as a stdio client launches it: messages written one per line to its stdin, every
 * stdout line parsed (a line that is not JSON-RPC fails the test that reads it).
 */
class BridgeProcess {
  readonly child;
  readonly received: Message[] = [];
  readonly stdoutLines: string[] = [];
  #stderr = '';
  #waiters: Array<() => void> = [];

  constructor(dataDir: string, env: NodeJS.ProcessEnv = {}) {
    this.child = spawn(process.execPath, [SLUICE_BIN, 'bridge', '--data-dir', dataDir], {
      env: { ...process.env, SLUICE_TOKEN: '', ...env },
    });
    let partial = '';
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        this.stdoutLines.push(line);
        this.received.push(JSON.parse(line));
      }
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr += chunk;
    });
  }

  get stderr(): string {
    return this.#stderr;
  }

  send(message: Message): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  writeLine(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** The first message received (now or later) that `match` accepts. */
  async next(match: (message: Message) => boolean, timeoutMs = 10_000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`bridge sent nothing matching; got ${JSON.stringify(this.received)}; stderr ${this.#stderr}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** Sends a request and resolves with the response carrying its id. */
  request(id: string | number, method: string, params: Message = {}): Promise<Message> {
    this.send({ jsonrpc: '2.0', id, method, params });
    return this.responseTo(id);
  }

  responseTo(id: string | number): Promise<Message> {
    return this.next((message) => message.id === id && ('result' in message || 'error' in message));
  }

  /** `initialize` as a 2025-era client sends it, and the `initialized` notification after it. */
  async initialize(capabilities: Message = {}, protocolVersion = '2025-11-25'): Promise<Message> {
    const response = await this.request('init', 'initialize', {
      protocolVersion,
      capabilities,
      clientInfo: { name: 'bridge-suite', title: 'Bridge suite', version: '1.0.0' },
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return response;
  }

  async close(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.stdin.end();
    return exited(this.child);
  }
}

const SLOW_SQL =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 500000000) SELECT count(*) FROM c';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

let app: TestApp;
const bridges: BridgeProcess[] = [];

function startBridge(dataDir = app.dataDir, env: NodeJS.ProcessEnv = {}): BridgeProcess {
  const bridge = new BridgeProcess(dataDir, env);
  bridges.push(bridge);
  return bridge;
}

beforeAll(async () => {
  app = await startTestApp({ auth: true });
});
afterEach(async () => {
  for (const bridge of bridges.splice(0)) {
    // Nothing but protocol messages on stdout, whatever the test did.
    for (const message of bridge.received) expect(message.jsonrpc).toBe('2.0');
    await bridge.close();
  }
});
afterAll(() => app.dispose());

const callTool = (bridge: BridgeProcess, id: string | number, name: string, args: Message, meta?: Message) =>
  bridge.request(id, 'tools/call', { name, arguments: args, ...(meta ? { _meta: meta } : {}) });

describe('refusing to run', () => {
  it('exits non-zero with one line on stderr and nothing on stdout when Sluice is not running', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-bridge-'));
    try {
      const bridge = new BridgeProcess(dataDir);
      expect(await exited(bridge.child)).toEqual({ code: 1, signal: null });
      expect(bridge.stderr).toBe(`sluice: Sluice is not running (no valid ${join(dataDir, 'mcp-handshake.json')}); start it with "sluice serve"\n`);
      expect(bridge.stdoutLines).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('exits non-zero when the handshake names a port nobody answers on (a stale file)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-bridge-'));
    const probe = createServer();
    const port = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port)));
    await new Promise((resolve) => probe.close(resolve));
    writeFileSync(join(dataDir, 'mcp-handshake.json'), JSON.stringify({ port, pid: 1, version: '0.1.0', bridgeToken: 'slb_x' }));
    try {
      const bridge = new BridgeProcess(dataDir);
      expect(await exited(bridge.child)).toEqual({ code: 1, signal: null });
      expect(bridge.stderr).toBe(`sluice: Sluice is not running (nothing answers on port ${port})\n`);
      expect(bridge.stdoutLines).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('calls server/discover first and exits non-zero when 2026-07-28 is not in supportedVersions', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-bridge-'));
    const seen: Message[] = [];
    const old = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        seen.push({ method: req.headers['mcp-method'], authorization: req.headers.authorization, body: JSON.parse(body) });
        res.setHeader('content-type', 'application/json');
        const result = { supportedVersions: ['2025-11-25', '2025-06-18'], capabilities: {}, instructions: '' };
        res.end(JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(body).id, result }));
      });
    });
    const port = await new Promise<number>((resolve) => old.listen(0, '127.0.0.1', () => resolve((old.address() as { port: number }).port)));
    writeFileSync(join(dataDir, 'mcp-handshake.json'), JSON.stringify({ port, pid: 1, version: '0.0.9', bridgeToken: 'slb_old' }));
    try {
      const bridge = new BridgeProcess(dataDir);
      expect(await exited(bridge.child)).toEqual({ code: 1, signal: null });
      expect(bridge.stderr).toBe(
        `sluice: Sluice on port ${port} does not support 2026-07-28 (it supports 2025-11-25, 2025-06-18); update Sluice\n`,
      );
      expect(bridge.stdoutLines).toEqual([]);
      expect(seen).toEqual([
        {
          method: 'server/discover',
          authorization: 'Bearer slb_old',
          body: {
            jsonrpc: '2.0',
            id: expect.any(String),
            method: 'server/discover',
            params: { _meta: modernMeta({ 'io.modelcontextprotocol/clientInfo': { name: 'sluice-bridge', version: '0.1.0' } }) },
          },
        },
      ]);
    } finally {
      await new Promise((resolve) => old.close(resolve));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a legacy stdio client', () => {
  it('is answered initialize from the discover result, at its own version when Sluice speaks it', async () => {
    const bridge = startBridge();
    const response = await bridge.initialize({}, '2025-06-18');
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 'init',
      result: {
        protocolVersion: '2025-06-18',
        capabilities: {
          tools: { listChanged: false },
          resources: { subscribe: false, listChanged: false },
          prompts: { listChanged: false },
          completions: {},
          logging: {},
        },
        serverInfo: { name: 'sluice', title: 'Sluice', version: '0.1.0', websiteUrl: expect.any(String) },
        instructions: expect.stringMatching(/list_connections[\s\S]*describe_table/),
      },
    });
  });

  it('is offered the newest initialize-era version when it asks for one Sluice does not speak', async () => {
    const bridge = startBridge();
    expect((await bridge.initialize({}, '2024-11-05')).result.protocolVersion).toBe('2025-11-25');
  });

  it('answers ping and logging/setLevel itself; a request before initialize without _meta is -32600', async () => {
    const bridge = startBridge();
    expect(await bridge.request(1, 'tools/list')).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32600, message: 'Send initialize first, or a 2026-07-28 request with _meta' },
    });
    expect(await bridge.request(2, 'ping')).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    await bridge.initialize();
    expect(await bridge.request(3, 'logging/setLevel', { level: 'info' })).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  it('gets legacy results (no resultType, cache hints or serverInfo) and the client is named in the activity log', async () => {
    const bridge = startBridge();
    await bridge.initialize();
    const list = await bridge.request(1, 'tools/list');
    expect(Object.keys(list.result)).toEqual(['tools']);
    expect(list.result.tools.map((tool: Message) => tool.name)).toContain('execute_query');
    const call = await callTool(bridge, 2, 'list_connections', {});
    expect(Object.keys(call.result).sort()).toEqual(['content', 'isError', 'structuredContent']);
    expect(call.result.structuredContent.connections.map((c: Message) => c.id)).toEqual(['demo']);
    const logged = app.activity.list({ limit: 20 }).find((row) => row.action === 'list_connections' && row.client_name === 'bridge-suite');
    expect(logged).toMatchObject({ token_id: 'bridge', token_name: 'stdio bridge', outcome: 'success' });
  });

  it('sends every required header: a non-ASCII prompt name travels base64-wrapped and is refused as unknown (-32602), not as a header mismatch', async () => {
    const bridge = startBridge();
    await bridge.initialize();
    const response = await bridge.request(1, 'prompts/get', { name: 'café ☕', arguments: {} });
    expect(response.error.code).toBe(-32602);
    const resource = await bridge.request(2, 'resources/read', { uri: 'sluice://connections' });
    expect(resource.result.contents[0].uri).toBe('sluice://connections');
  });

  it('relays progress: SSE frames become notifications/progress on stdout before the response', async () => {
    const bridge = startBridge();
    await bridge.initialize();
    const response = await callTool(bridge, 'q', 'execute_query', { connection_id: 'demo', sql: 'SELECT count(*) AS n FROM books' }, { progressToken: 'tok-7' });
    expect(response.result.structuredContent.rows).toEqual([[expect.any(Number)]]);
    const frames = bridge.received.filter((message) => message.method === 'notifications/progress');
    expect(frames.map((frame) => [frame.params.progressToken, frame.params.progress, frame.params.total])).toEqual([
      ['tok-7', 0, 1],
      ['tok-7', 0.3, 1],
      ['tok-7', 1, 1],
    ]);
    expect(bridge.received.indexOf(frames[2]!)).toBeLessThan(bridge.received.indexOf(response));
  });

  it('answers a malformed line with -32700 and a non-JSON-RPC message with -32600, and keeps going', async () => {
    const bridge = startBridge();
    bridge.writeLine('{not json');
    bridge.writeLine('[1,2]');
    await bridge.next((message) => message.error?.code === -32600);
    expect(bridge.received).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: a line is not JSON' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message' } },
    ]);
    expect((await bridge.initialize()).result.protocolVersion).toBe('2025-11-25');
  });
});

describe('consent through the bridge', () => {
  const genres = () => scalar(join(app.dataDir, 'demo.sqlite'), 'SELECT count(*) FROM genres') as number;
  /** The write, as request `w`, without waiting: its answer depends on the consent the test gives. */
  const sendInsert = (bridge: BridgeProcess, sql: string) =>
    bridge.send({ jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { name: 'execute_query', arguments: { connection_id: 'demo', sql } } });

  it('relays input_required to a client that declared elicitation, and repeats the call with its answer', async () => {
    const bridge = startBridge();
    await bridge.initialize({ elicitation: {} });
    const before = genres();
    const sql = "INSERT INTO genres (name) VALUES ('Bridged')";
    sendInsert(bridge, sql);
    const ask = await bridge.next((message) => message.method === 'elicitation/create');
    expect(ask).toEqual({
      jsonrpc: '2.0',
      id: expect.any(String),
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: expect.stringContaining('Demo bookshop'),
        requestedSchema: expect.objectContaining({ required: ['approved'] }),
      },
    });
    expect(JSON.stringify(ask.params.requestedSchema)).toContain(sql);
    bridge.send({ jsonrpc: '2.0', id: ask.id, result: ACCEPTED });
    const done = await bridge.responseTo('w');
    expect(done.result).toMatchObject({ isError: false, structuredContent: { statement_kind: 'write', rows_affected: 1 } });
    expect(done.result.resultType).toBeUndefined();
    expect(genres()).toBe(before + 1);
  });

  it('a declined elicitation ends the call with the tool error denied; a 2025-06-18 client is asked without mode', async () => {
    const bridge = startBridge();
    await bridge.initialize({ elicitation: {} }, '2025-06-18');
    const before = genres();
    sendInsert(bridge, "INSERT INTO genres (name) VALUES ('No')");
    const ask = await bridge.next((message) => message.method === 'elicitation/create');
    expect(Object.keys(ask.params).sort()).toEqual(['message', 'requestedSchema']);
    bridge.send({ jsonrpc: '2.0', id: ask.id, result: { action: 'decline' } });
    const done = await bridge.responseTo('w');
    expect(done.result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/^denied: /) }] });
    expect(genres()).toBe(before);
  });

  it('a client without elicitation waits on the application’s confirmation dialog', async () => {
    const bridge = startBridge();
    await bridge.initialize();
    const before = genres();
    sendInsert(bridge, "INSERT INTO genres (name) VALUES ('Dialog')");
    const dialog = await eventually(() => app.dialogs.list()[0], 'a confirmation dialog');
    expect(dialog).toMatchObject({ clientName: 'bridge-suite', connectionId: 'demo', tool: 'execute_query' });
    expect(bridge.received.some((message) => message.method === 'elicitation/create')).toBe(false);
    expect(app.dialogs.answer(dialog.id, 'approve')).toBe(true);
    expect((await bridge.responseTo('w')).result.structuredContent).toMatchObject({ rows_affected: 1 });
    expect(genres()).toBe(before + 1);
  });
});

describe('cancellation and a client that goes away', () => {
  /** Starts the slow statement as request `slow` and resolves with its query process once it runs. */
  async function startSlowQuery(bridge: BridgeProcess): Promise<number | undefined> {
    await bridge.initialize();
    bridge.send({
      jsonrpc: '2.0',
      id: 'slow',
      method: 'tools/call',
      params: { name: 'execute_query', arguments: { connection_id: 'demo', sql: SLOW_SQL }, _meta: { progressToken: 's' } },
    });
    await bridge.next((message) => message.params?.progress === 0.3);
    // The shared pool may hold idle processes too: the statement's is the busy one.
    return eventually(() => busyQueryProcesses()[0], 'the slow query process');
  }

  it('forwards notifications/cancelled: the query process stops and no response is sent for the cancelled id', async () => {
    const bridge = startBridge();
    const running = await startSlowQuery(bridge);
    expect(running).toBeGreaterThan(0);
    bridge.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow', reason: 'user stop' } });
    await expect.poll(queryProcesses, { timeout: 2_000, interval: 50 }).not.toContain(running);
    // Still serving, and the cancelled request never got an answer.
    expect((await bridge.request('after', 'ping')).result).toEqual({});
    expect(bridge.received.some((message) => message.id === 'slow')).toBe(false);
  });

  it('closes the HTTP request when the client closes stdin: the bridge exits 0 and the query stops', async () => {
    const bridge = startBridge();
    const running = await startSlowQuery(bridge);
    expect(await bridge.close()).toEqual({ code: 0, signal: null });
    await expect.poll(queryProcesses, { timeout: 2_000, interval: 50 }).not.toContain(running);
    await expect.poll(() => app.liveActors(), { timeout: 2_000 }).toBe(0);
  });
});

describe('a modern stdio client', () => {
  it('has server/discover and its own _meta forwarded unchanged, and gets modern results', async () => {
    const bridge = startBridge();
    const discover = await bridge.request(1, 'server/discover', { _meta: modernMeta() });
    expect(discover.result).toMatchObject({ supportedVersions: [MODERN, '2025-11-25', '2025-06-18'], resultType: 'complete', ttlMs: 3_600_000 });
    const call = await callTool(bridge, 2, 'list_connections', {}, modernMeta());
    expect(call.result).toMatchObject({ resultType: 'complete', isError: false });
    expect(call.result._meta[SERVER_INFO_KEY]).toMatchObject({ name: 'sluice' });
  });

  it('returns input_required as it is, for the client to answer with its own repeated call', async () => {
    const bridge = startBridge();
    const meta = modernMeta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } });
    const args = { connection_id: 'demo', sql: "INSERT INTO genres (name) VALUES ('Modern')" };
    const first = await callTool(bridge, 1, 'execute_query', args, meta);
    expect(first.result.resultType).toBe('input_required');
    const second = await bridge.request(2, 'tools/call', {
      name: 'execute_query',
      arguments: args,
      requestState: first.result.requestState,
      inputResponses: { approve_statement: ACCEPTED },
      _meta: meta,
    });
    expect(second.result).toMatchObject({ resultType: 'complete', structuredContent: { rows_affected: 1 } });
  });

  it('keeps subscription frames addressed by the client’s own request id', async () => {
    const bridge = startBridge();
    bridge.send({
      jsonrpc: '2.0',
      id: 'listen-1',
      method: 'subscriptions/listen',
      params: { notifications: { resourcesListChanged: true }, _meta: modernMeta() },
    });
    const ack = await bridge.next((message) => message.method === 'notifications/subscriptions/acknowledged');
    expect(ack.params._meta['io.modelcontextprotocol/subscriptionId']).toBe('listen-1');
    bridge.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'listen-1', _meta: modernMeta() } });
  });
});

describe('the application restarting', () => {
  it('reports a stopped application as -33000 without exiting, then follows the new port and bridge token', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-bridge-'));
    let first = await startApp({ dataDir, port: 0 });
    try {
      const bridge = startBridge(dataDir);
      await bridge.initialize();
      expect((await callTool(bridge, 1, 'list_connections', {})).result.isError).toBe(false);
      const oldToken = readHandshake(dataDir)?.bridgeToken;
      const oldPort = first.port;
      await first.stop();

      expect(await callTool(bridge, 2, 'list_connections', {})).toEqual({
        jsonrpc: '2.0',
        id: 2,
        error: { code: -33000, message: expect.stringMatching(/^Sluice is not running/) },
      });
      expect(bridge.child.exitCode).toBeNull();

      // Same port, new bridge token: the old one is refused and the bridge rotates to the new one.
      first = await startApp({ dataDir, port: oldPort });
      expect(readHandshake(dataDir)?.bridgeToken).not.toBe(oldToken);
      expect((await callTool(bridge, 3, 'list_connections', {})).result.isError).toBe(false);

      // A new port as well.
      await first.stop();
      first = await startApp({ dataDir, port: 0 });
      expect((await callTool(bridge, 4, 'list_connections', {})).result.isError).toBe(false);
    } finally {
      await first.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('SLUICE_TOKEN', () => {
  it('makes the bridge use a paired token instead of the bridge token: a readOnly token cannot write', async () => {
    const readOnly = mintToken(app, 'bridge readOnly', 'readOnly');
    const bridge = startBridge(app.dataDir, { SLUICE_TOKEN: readOnly.plaintext });
    await bridge.initialize({ elicitation: {} });
    const response = await callTool(bridge, 1, 'execute_query', { connection_id: 'demo', sql: "INSERT INTO genres (name) VALUES ('RO')" });
    expect(response.error).toMatchObject({ code: -33007, data: { requiredScopes: ['tools:read', 'tools:write'] } });
    expect(app.tokens.list().find((record) => record.id === readOnly.id)?.lastUsedAt).toEqual(expect.any(String));
  });
});
