/**
 * Real-socket tests of the contract's transport rules for `/mcp` (wire-contract.md: "Transport rules for
 * /mcp", "Limits", "Errors"). Everything here goes over loopback TCP: `node:http` with `agent: false` (so
 * that no pooled connection counts against the server's connection limit, and so that `Host` can be set),
 * or `node:net` sockets where the test needs to control the bytes.
 */
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chunked,
  closedWithin,
  exchangeRaw,
  openListenStream,
  openSocket,
  type RawExchange,
  rawRequest,
  type Reply,
  sendRaw,
  slices,
  withSocket,
} from '../helpers/rawHttp.js';
import { mcp, mirroredHeaders, modernMeta, startTestApp, type TestApp } from '../helpers/testApp.js';
import { untilPasses } from '../helpers/polling.js';
import { TRANSPORT } from '../../src/core/contract.js';

const MAX_BODY = 10 * 1024 * 1024;
const ALLOW = 'POST, OPTIONS';
const ALLOWED_ORIGINS = ['https://claude.ai', 'https://app.cursor.com'];
const CHUNKED = { 'transfer-encoding': 'chunked' };

const DISCOVER_HEADERS = mirroredHeaders('server/discover', {});

function discoverBody(extraMeta: Record<string, unknown> = {}, id: number | string = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'server/discover',
    params: { _meta: modernMeta(extraMeta) },
  });
}

/** A valid modern `server/discover` over a fresh connection; `headers` add to or replace the mirrored ones. */
function discover(port: number, headers: Record<string, string> = {}, path = '/mcp'): Promise<Reply> {
  return rawRequest(port, { path, headers: { ...DISCOVER_HEADERS, ...headers }, body: discoverBody() });
}

/** The same request for a raw socket: `headers` follow the mirrored ones; `rest` may replace the body. */
function rawDiscover(headers: RawExchange['headers'] = {}, rest: RawExchange = {}): RawExchange {
  return { headers: { ...DISCOVER_HEADERS, ...headers }, body: discoverBody(), ...rest };
}

function expectDiscoverOk(reply: Reply, id: number | string = 1): void {
  expect(reply.status).toBe(200);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(reply.json).toMatchObject({ jsonrpc: '2.0', id, result: { resultType: 'complete' } });
  expect(reply.json.result.supportedVersions).toContain('2026-07-28');
}

function expectHttpError(reply: Reply, status: number, error: string): void {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(reply.json).toEqual({ error, error_description: expect.any(String) });
}

function expectRpcError(reply: Reply, status: number, code: number, id: number | string | null = null): void {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(reply.json).toMatchObject({ jsonrpc: '2.0', id, error: { code, message: expect.any(String) } });
  expect(reply.json).not.toHaveProperty('result');
}

/** A JSON-RPC error with id null that also tells the client the connection is closing. */
function expectRpcErrorClosing(reply: Reply, status: number, code: number): void {
  expectRpcError(reply, status, code, null);
  expect(reply.headers.connection).toBe('close');
}

/** The status, with `Allow: POST, OPTIONS` (as on every 405, and on every answer to OPTIONS /mcp). */
function expectAllow(reply: Reply, status: number): void {
  expect(reply.status).toBe(status);
  expect(reply.headers.allow).toBe(ALLOW);
}

/** The values of a comma-separated header, trimmed and lower-cased. */
function listHeader(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean);
}

/** A valid `server/discover` body padded with trailing JSON whitespace to exactly `size` bytes. */
function paddedDiscover(size: number): Buffer {
  const json = discoverBody();
  return Buffer.from(json + ' '.repeat(size - Buffer.byteLength(json)));
}


async function expectHealthy(port: number): Promise<void> {
  expectDiscoverOk(await discover(port));
}

// ---- tests against one shared server with the contract's limits --------------------------------------

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.dispose());

describe('paths', () => {
  it.each(['/other', '/', '/mcp/'])('POST %s is 404 with a JSON not_found body', async (path) => {
    expectHttpError(await discover(app.port, {}, path), 404, 'not_found');
  });

  it.each([
    ['GET', '/'],
    ['OPTIONS', '/other'],
  ])('%s %s is 404', async (method, path) => {
    expectHttpError(await rawRequest(app.port, { method, path }), 404, 'not_found');
  });

  it('/mcp?x=1 is still /mcp', async () => {
    expectDiscoverOk(await discover(app.port, {}, '/mcp?x=1'));
  });

  it('POST /mcp with a valid request is 200 (baseline, through fetch as well)', async () => {
    expectDiscoverOk(await discover(app.port));
    const viaFetch = await mcp(app, 'server/discover');
    expect(viaFetch.status).toBe(200);
    expect(viaFetch.json.result.resultType).toBe('complete');
  });
});

describe('methods on /mcp', () => {
  it.each(['GET', 'DELETE', 'PUT', 'PATCH'])('%s /mcp is 405 with Allow: POST, OPTIONS', async (method) => {
    const reply = await rawRequest(app.port, { method });
    expectHttpError(reply, 405, 'method_not_allowed');
    expect(reply.headers.allow).toBe(ALLOW);
  });

  it('HEAD /mcp is 405 with Allow: POST, OPTIONS', async () => {
    const reply = await rawRequest(app.port, { method: 'HEAD' });
    expectAllow(reply, 405);
    expect(reply.text).toBe('');
  });

  it('GET /mcp?x=1 is 405 as well (the query does not change the path)', async () => {
    const reply = await rawRequest(app.port, { method: 'GET', path: '/mcp?x=1' });
    expectAllow(reply, 405);
  });

  it('OPTIONS /mcp without Origin is 204 with Allow and an empty body, no CORS grant', async () => {
    const reply = await rawRequest(app.port, { method: 'OPTIONS' });
    expectAllow(reply, 204);
    expect(reply.text).toBe('');
    expect(reply.headers).not.toHaveProperty('access-control-allow-origin');
  });

  it.each(ALLOWED_ORIGINS)(
    'CORS preflight from %s is 204 and grants POST and every requested header',
    async (origin) => {
      const requested = ['content-type', 'authorization', 'mcp-method', 'mcp-param-table'];
      const reply = await rawRequest(app.port, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': requested.join(', '),
        },
      });
      expectAllow(reply, 204);
      expect(reply.text).toBe('');
      expect(reply.headers['access-control-allow-origin']).toBe(origin);
      expect(listHeader(reply.headers['access-control-allow-methods'])).toContain('post');
      const granted = listHeader(reply.headers['access-control-allow-headers']);
      for (const header of requested) expect(granted).toContain(header);
      expect(listHeader(reply.headers.vary)).toContain('origin');
    },
  );

  it.each(ALLOWED_ORIGINS)('POST from %s is answered with its origin echoed', async (origin) => {
    const reply = await discover(app.port, { origin });
    expectDiscoverOk(reply);
    expect(reply.headers['access-control-allow-origin']).toBe(origin);
    expect(listHeader(reply.headers.vary)).toContain('origin');
  });

  it('a JSON-RPC error to an allowed origin carries the CORS grant too (the browser can read it)', async () => {
    const reply = await rawRequest(app.port, {
      headers: { ...DISCOVER_HEADERS, origin: 'https://claude.ai' },
      body: '{not json',
    });
    expectRpcError(reply, 400, -32700);
    expect(reply.headers['access-control-allow-origin']).toBe('https://claude.ai');
  });

  it('405 to an allowed origin carries the CORS grant and Allow', async () => {
    const reply = await rawRequest(app.port, {
      method: 'GET',
      headers: { origin: 'https://app.cursor.com' },
    });
    expectAllow(reply, 405);
    expect(reply.headers['access-control-allow-origin']).toBe('https://app.cursor.com');
  });
});

describe('Host rule', () => {
  const accepted = (port: number) => [
    'localhost',
    `localhost:${port}`,
    `127.0.0.1:${port}`,
    '127.0.0.1',
    `[::1]:${port}`,
    '[::1]',
    `LOCALHOST:${port}`,
  ];
  const refused = (port: number) => [
    'evil.com',
    `evil.com:${port}`,
    'localhost:1',
    `127.0.0.1:${port + 1}`,
    '127.0.0.1.nip.io',
    `127.0.0.1.nip.io:${port}`,
    'localhost.evil.com',
    `localhost.evil.com:${port}`,
    `127.0.0.2:${port}`,
    `0.0.0.0:${port}`,
    `127.0.0.1:${port}@evil.com`,
  ];

  it('accepts localhost, 127.0.0.1 and [::1], bare or with the bound port', async () => {
    for (const host of accepted(app.port)) {
      const reply = await discover(app.port, { host });
      expect({ host, status: reply.status }).toEqual({ host, status: 200 });
      expectDiscoverOk(reply);
    }
  });

  it('refuses any other host, or a loopback name with another port, with 403 forbidden_host', async () => {
    for (const host of refused(app.port)) {
      const reply = await discover(app.port, { host });
      expect({ host, status: reply.status }).toEqual({ host, status: 403 });
      expectHttpError(reply, 403, 'forbidden_host');
      expect(reply.headers).not.toHaveProperty('access-control-allow-origin');
    }
  });

  it('refuses a forbidden host on every method and path (GET /mcp, OPTIONS /mcp)', async () => {
    expectHttpError(
      await rawRequest(app.port, { method: 'GET', headers: { host: 'evil.com' } }),
      403,
      'forbidden_host',
    );
    expectHttpError(
      await rawRequest(app.port, {
        method: 'OPTIONS',
        headers: { host: 'evil.com', origin: 'https://claude.ai', 'access-control-request-method': 'POST' },
      }),
      403,
      'forbidden_host',
    );
  });

  // node:http would replace an empty Host with its own, so these go out byte by byte.
  it.each<[string, Record<string, string>, string]>([
    ['an empty Host header', { host: '' }, '1.1'],
    ['an HTTP/1.1 request with no Host header', {}, '1.1'],
    ['an HTTP/1.0 request with no Host header', {}, '1.0'],
  ])('refuses %s with 403 forbidden_host', async (_request, host, httpVersion) => {
    const reply = await exchangeRaw(app.port, rawDiscover(host, { httpVersion, setHost: false }));
    expectHttpError(reply, 403, 'forbidden_host');
  });
});

describe('Origin rule', () => {
  it.each([
    'https://evil.example',
    'null',
    'http://claude.ai',
    'http://app.cursor.com',
    'https://claude.ai.evil.example',
    'https://evil.claude.ai',
    'http://127.0.0.1:38621',
  ])('refuses Origin: %s with 403 forbidden_origin and no CORS grant', async (origin) => {
    const reply = await discover(app.port, { origin });
    expectHttpError(reply, 403, 'forbidden_origin');
    expect(reply.headers).not.toHaveProperty('access-control-allow-origin');
  });

  it('refuses two Origin headers (an allowed one and a foreign one) with 403 forbidden_origin', async () => {
    const origins = { Origin: ['https://claude.ai', 'https://evil.example'] };
    const reply = await exchangeRaw(app.port, rawDiscover(origins));
    expectHttpError(reply, 403, 'forbidden_origin');
    expect(reply.headers).not.toHaveProperty('access-control-allow-origin');
  });

  it('refuses a preflight from a foreign origin with 403 forbidden_origin', async () => {
    const reply = await rawRequest(app.port, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expectHttpError(reply, 403, 'forbidden_origin');
    expect(reply.headers).not.toHaveProperty('access-control-allow-origin');
  });

  it('accepts a request without Origin, with no CORS grant in the answer', async () => {
    const reply = await discover(app.port);
    expectDiscoverOk(reply);
    expect(reply.headers).not.toHaveProperty('access-control-allow-origin');
  });
});

describe('body limit (10 MB)', () => {
  const overLimit = { 'content-length': String(MAX_BODY + 1) };

  it('answers a declared Content-Length over 10 MB with 413 -33005 at once, without reading the body', async () => {
    await withSocket(app.port, async (socket) => {
      // Only a few bytes of the announced 10 MB + 1 ever leave the client.
      const reply = await sendRaw(socket, rawDiscover(overLimit, { body: '{"jsonrpc":"2.0"' }));
      expectRpcErrorClosing(reply, 413, -33005);
      // Connection: close is kept: the server ends the connection (it discards the upload for at most 1 s).
      await closedWithin(socket, 3_000);
    });
  });

  // Each upload is streamed with back-pressure and stops as soon as the server answers.
  it.each([
    [
      'a chunked upload (no Content-Length) that grows past 10 MB',
      CHUNKED,
      () => chunked(Buffer.alloc(MAX_BODY + 2 * 1024 * 1024, 0x20)),
    ],
    [
      'a chunked upload of 10 MB + 1 byte of padded valid JSON (chunked bytes are counted exactly)',
      CHUNKED,
      () => chunked(paddedDiscover(MAX_BODY + 1)),
    ],
    [
      '10 MB + 1 byte sent in full with Content-Length',
      overLimit,
      () => slices(paddedDiscover(MAX_BODY + 1)),
    ],
  ])('answers %s with 413 -33005', async (_upload, headers, pieces) => {
    const reply = await exchangeRaw(app.port, rawDiscover(headers, { body: pieces(), timeoutMs: 15_000 }));
    expectRpcErrorClosing(reply, 413, -33005);
  });

  it('accepts exactly 10 MB (valid JSON padded with whitespace) sent chunked', async () => {
    const body = chunked(paddedDiscover(MAX_BODY));
    expectDiscoverOk(await exchangeRaw(app.port, rawDiscover(CHUNKED, { body, timeoutMs: 15_000 })));
  });

  it('accepts exactly 10 MB with Content-Length (whitespace padding)', async () => {
    const body = paddedDiscover(MAX_BODY);
    expect(body.length).toBe(MAX_BODY);
    expectDiscoverOk(await rawRequest(app.port, { headers: DISCOVER_HEADERS, body }));
  });

  it('accepts a request whose params hold one long string, the body exactly 10 MB', async () => {
    const key = 'example.com/padding';
    const bare = Buffer.byteLength(discoverBody({ [key]: '' }));
    const body = discoverBody({ [key]: 'x'.repeat(MAX_BODY - bare) });
    expect(Buffer.byteLength(body)).toBe(MAX_BODY);
    expectDiscoverOk(await rawRequest(app.port, { headers: DISCOVER_HEADERS, body }));
  });

  it('413 to an allowed origin carries the CORS grant', async () => {
    // The head alone: the announced body never follows.
    const head = rawDiscover({ origin: 'https://claude.ai', ...overLimit }, { body: '' });
    const reply = await exchangeRaw(app.port, head);
    expectRpcError(reply, 413, -33005, null);
    expect(reply.headers['access-control-allow-origin']).toBe('https://claude.ai');
  });

  it('still answers normal requests after the refused uploads', async () => {
    await expectHealthy(app.port);
    const viaFetch = await mcp(app, 'server/discover');
    expect(viaFetch.status).toBe(200);
  });
});

describe('nosniff', () => {
  it('every answer, each refusal included, carries X-Content-Type-Options: nosniff', async () => {
    const manyLines: Record<string, string> = { ...DISCOVER_HEADERS };
    for (let i = 0; i < TRANSPORT.maxHeaderLines; i++) manyLines[`x-p${i}`] = 'x';
    const answers: [string, () => Promise<Reply>][] = [
      ['200 discover', () => discover(app.port)],
      ['204 preflight', () => rawRequest(app.port, { method: 'OPTIONS' })],
      ['403 forbidden_host', () => discover(app.port, { host: 'evil.example' })],
      ['403 forbidden_origin', () => discover(app.port, { origin: 'https://evil.example' })],
      ['404 not_found', () => discover(app.port, {}, '/other')],
      ['405 /mcp', () => rawRequest(app.port, { method: 'GET' })],
      ['405 exchange', () => rawRequest(app.port, { method: 'GET', path: '/v1/integrations/exchange' })],
      ['413 body', () => rawRequest(app.port, { headers: { ...DISCOVER_HEADERS, 'content-length': String(MAX_BODY + 1) } })],
      ['431 too_many_headers', () => rawRequest(app.port, { headers: manyLines, body: discoverBody() })],
    ];
    for (const [name, send] of answers) {
      const reply = await send();
      expect({ name, status: reply.status, nosniff: reply.headers['x-content-type-options'] }).toEqual({
        name,
        status: Number(name.slice(0, 3)),
        nosniff: 'nosniff',
      });
    }
  });
});

describe('header limit (16 KB)', () => {
  it('answers headers over 16 KB with 431 and closes the connection', async () => {
    await withSocket(app.port, async (socket) => {
      const reply = await sendRaw(socket, rawDiscover({ 'x-padding': 'a'.repeat(17 * 1024) }));
      expect(reply.status).toBe(431);
      expect(reply.headers.connection).toBe('close');
      await closedWithin(socket, 3_000);
    });
  });

  it(`counts the target and every header's name and value: ${TRANSPORT.maxHeaderBytes - 1} bytes are served, ${TRANSPORT.maxHeaderBytes} are 431`, async () => {
    // What node:http counts toward maxHeaderSize: no separator, space or line end.
    const padded = (counted: number): RawExchange => {
      const base = { host: `127.0.0.1:${app.port}`, ...DISCOVER_HEADERS, 'content-length': String(Buffer.byteLength(discoverBody())) };
      const used = '/mcp'.length + Object.entries(base).reduce((n, [name, value]) => n + name.length + value.length, 0) + 'x-padding'.length;
      return rawDiscover({ ...base, 'x-padding': 'p'.repeat(counted - used) }, { setHost: false });
    };
    expectDiscoverOk(await exchangeRaw(app.port, padded(TRANSPORT.maxHeaderBytes - 1)));
    expect((await exchangeRaw(app.port, padded(TRANSPORT.maxHeaderBytes))).status).toBe(431);
  });

  it('answers 431 through node:http as well, for many mid-sized headers that sum past 16 KB', async () => {
    const headers: Record<string, string> = { ...DISCOVER_HEADERS };
    for (let i = 0; i < 20; i++) headers[`x-pad-${i}`] = 'b'.repeat(1024);
    const reply = await rawRequest(app.port, { headers, body: discoverBody() }).catch(
      (error: Error) => error,
    );
    // Node may reset the connection while the client still writes; when it does not, the answer is 431.
    if (!(reply instanceof Error)) expect(reply.status).toBe(431);
  });

  it('accepts headers just under the limit (15 KB)', async () => {
    expectDiscoverOk(await discover(app.port, { 'x-padding': 'c'.repeat(15 * 1024) }));
  });

  it('stays healthy after oversized headers', async () => {
    await expectHealthy(app.port);
  });
});

describe('header lines (at most 100) and body shape (64 levels, 50,000 values)', () => {
  it(`answers ${TRANSPORT.maxHeaderLines + 1} header lines with 431 too_many_headers and closes; ${TRANSPORT.maxHeaderLines} are served`, async () => {
    // node:http adds Host, Connection and Content-Length to the three mirrored headers.
    const many = (count: number) => {
      const headers: Record<string, string> = { ...DISCOVER_HEADERS };
      for (let i = 6; i < count; i++) headers[`x-p${i}`] = 'x';
      return headers;
    };
    const refused = await rawRequest(app.port, { headers: many(TRANSPORT.maxHeaderLines + 1), body: discoverBody() });
    expectHttpError(refused, 431, 'too_many_headers');
    expect(refused.headers.connection).toBe('close');
    expectDiscoverOk(await rawRequest(app.port, { headers: many(TRANSPORT.maxHeaderLines), body: discoverBody() }));
  });

  it('a body nested 65 deep, or with 50,001 values, is -32600 (refused unparsed, so id null) and closes; 64 deep and 50,000 values are served', async () => {
    // The envelope around the value nests 3 deep and counts 11 values of its own (its brackets and commas).
    const nested = (depth: number) => `${'['.repeat(depth - 3)}${']'.repeat(depth - 3)}`;
    const withValues = (count: number) => `[${'0,'.repeat(count - 11)}0]`;
    const send = (value: string) =>
      rawRequest(app.port, { headers: DISCOVER_HEADERS, body: discoverBody({ 'example.com/x': '@' }).replace('"@"', value) });
    expectRpcErrorClosing(await send(nested(65)), 400, -32600);
    expectDiscoverOk(await send(nested(64)));
    expectRpcErrorClosing(await send(withValues(50_001)), 400, -32600);
    expectDiscoverOk(await send(withValues(50_000)));
  });
});

describe('notifications', () => {
  const notify = (method: string, params: Record<string, unknown>, extra: Record<string, string>) =>
    rawRequest(app.port, {
      headers: { ...mirroredHeaders(method, params), ...extra },
      body: JSON.stringify({ jsonrpc: '2.0', method, params: { ...params, _meta: modernMeta() } }),
    });

  type Notification = {
    method: string;
    params: Record<string, unknown>;
    sent: Record<string, string>;
    /** Headers the answer must carry. */
    answered: Record<string, string>;
  };

  it.each<[string, Notification]>([
    [
      'notifications/initialized',
      { method: 'notifications/initialized', params: {}, sent: {}, answered: { 'content-length': '0' } },
    ],
    [
      'notifications/cancelled for an unknown request',
      {
        method: 'notifications/cancelled',
        params: { requestId: 99 },
        sent: {},
        answered: { 'content-length': '0' },
      },
    ],
    [
      'an arbitrary notification (accepted and ignored)',
      { method: 'notifications/roots/list_changed', params: {}, sent: {}, answered: {} },
    ],
    [
      'a notification from an allowed origin (with the CORS grant)',
      {
        method: 'notifications/initialized',
        params: {},
        sent: { origin: 'https://claude.ai' },
        answered: { 'access-control-allow-origin': 'https://claude.ai' },
      },
    ],
  ])('%s is 202 with an empty body', async (_notification, { method, params, sent, answered }) => {
    const reply = await notify(method, params, sent);
    expect(reply.status).toBe(202);
    expect(reply.text).toBe('');
    expect(reply.headers).toMatchObject(answered);
  });
});

describe('malformed bodies', () => {
  it.each<[string, number, string | Buffer]>([
    [
      'invalid UTF-8',
      -32700,
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]),
    ],
    ['an empty body', -32700, ''],
    ['truncated JSON', -32700, discoverBody().slice(0, 20)],
    ['a JSON array (batch)', -32600, `[${discoverBody()}]`],
  ])('%s is 400 %i with id null', async (_body, code, bytes) => {
    expectRpcError(await rawRequest(app.port, { headers: DISCOVER_HEADERS, body: bytes }), 400, code, null);
  });

  it('leaves the process healthy', async () => {
    await expectHealthy(app.port);
  });
});

// ---- tests that need a server of their own ---------------------------------------------------------

/** Starts a server with a cap of 4 and holds every slot with an open `subscriptions/listen` stream (a request being answered); closes them all and stops it after `use`. */
async function withBusyConnections(use: (server: TestApp, busy: Socket[]) => Promise<void>): Promise<void> {
  const server = await startTestApp({ limits: { ...TRANSPORT, maxConnections: 4 } });
  const busy: Socket[] = [];
  try {
    for (let i = 0; i < 4; i++) busy.push(await openListenStream(server.port));
    await use(server, busy);
  } finally {
    for (const socket of busy) socket.destroy();
    await server.dispose();
  }
}

// Which connection gives way to a newcomer at the cap, and the contract's 64: test/e2e/slowClients.test.ts.
describe('concurrent connections', () => {
  it('with maxConnections 4 held by requests being answered: connection 5 gets 503 -33000 and Connection: close; closing frees slots', async () => {
    await withBusyConnections(async (server, busy) => {
      expectRpcErrorClosing(await discover(server.port), 503, -33000);
      for (const socket of busy) socket.destroy();
      await untilPasses(async () => expectDiscoverOk(await discover(server.port)));
    });
  });

  it('with maxConnections 4: the refused connection is closed by the server', async () => {
    await withBusyConnections((server) =>
      withSocket(server.port, async (fifth) => {
        expectRpcErrorClosing(await sendRaw(fifth, rawDiscover()), 503, -33000);
        await closedWithin(fifth, 3_000);
      }),
    );
  });

  it('with the contract default of 64: 63 idle connections still leave room for a request', async () => {
    const idle: Socket[] = [];
    try {
      for (let i = 0; i < 63; i++) idle.push(await openSocket(app.port));
      expectDiscoverOk(await discover(app.port));
      expect(idle.every((socket) => !socket.destroyed)).toBe(true);
    } finally {
      for (const socket of idle) socket.destroy();
    }
  });
});

describe('idle connection timeout', () => {
  let quick: TestApp;
  beforeAll(async () => {
    quick = await startTestApp({ limits: { ...TRANSPORT, idleTimeoutMs: 300 } });
  });
  afterAll(() => quick.dispose());

  it('closes a connection that never sends anything', async () => {
    await withSocket(quick.port, async (socket) => {
      expect(await closedWithin(socket, 2_000)).toBeGreaterThanOrEqual(100);
    });
  });

  it('closes a keep-alive connection left idle after a response', async () => {
    await withSocket(quick.port, async (socket) => {
      const reply = await sendRaw(socket, rawDiscover({ connection: 'keep-alive' }));
      expectDiscoverOk(reply);
      expect(reply.headers.connection).toBe('keep-alive');
      expect(socket.destroyed).toBe(false);
      await closedWithin(socket, 2_000);
    });
  });

  it('serves several requests on one keep-alive connection while it is in use', async () => {
    await withSocket(quick.port, async (socket) => {
      for (const id of [1, 2, 3]) {
        expectDiscoverOk(await sendRaw(socket, rawDiscover({}, { body: discoverBody({}, id) })), id);
      }
    });
  });

  it('keeps serving new connections after closing idle ones', async () => {
    await expectHealthy(quick.port);
  });

  it('the contract default closes idle keep-alive sockets at 30 s and tells clients 29 s, so they leave first', async () => {
    const reply = await exchangeRaw(app.port, rawDiscover());
    expectDiscoverOk(reply);
    expect(reply.headers['keep-alive']).toBe('timeout=29');
  });
});
