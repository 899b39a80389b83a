/**
 * Slow clients and the 64 connection slots (issue 27, finding 3; decisions.md, "Sessions, slots and
 * answers"): a request head must complete within a few seconds, and at the cap the connection that has
 * waited longest on its client (an unfinished head, an idle keep-alive, a refused caller still uploading)
 * gives way to a newcomer; a connection with a request being answered never does. Real sockets on
 * loopback; the contract's cap of 64 unless a test says otherwise.
 */
import type { Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closedWithin, openListenStream, openSocket, rawRequest, type Reply, readResponse, requestHead, sendRaw } from '../helpers/rawHttp.js';
import { mintToken, mirroredHeaders, modernMeta, startTestApp, type TestApp } from '../helpers/testApp.js';
import { openConsole } from '../helpers/consoleClient.js';
import { TRANSPORT } from '../../src/core/contract.js';
import { fenceNamesBlanked } from '../helpers/dataFence.js';

const MAX = TRANSPORT.maxConnections;
const DRIP_MS = 2_000;
/** The cap of the suite that tells which connection gives way. */
const MAX_SMALL = 4;

/** Every socket and timer a test opened, let go after it. */
const opened: Socket[] = [];
const drips: NodeJS.Timeout[] = [];
afterEach(async () => {
  for (const drip of drips.splice(0)) clearInterval(drip);
  for (const socket of opened.splice(0)) socket.destroy();
  // The server (in this process) hears of the closes before the next test fills its slots.
  await new Promise((resolve) => setTimeout(resolve, 50));
});

async function open(port: number): Promise<Socket> {
  const socket = await openSocket(port);
  opened.push(socket);
  return socket;
}

/** Writes `start`, then one byte every DRIP_MS, for as long as the test runs. */
async function trickle(port: number, start: string): Promise<Socket> {
  const socket = await open(port);
  socket.resume();
  socket.write(start);
  drips.push(setInterval(() => socket.destroyed || socket.write('a'), DRIP_MS));
  return socket;
}

/** A head that never ends: one header byte every DRIP_MS. */
const trickleHead = (port: number) => trickle(port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `);

function rpc(method: string, params: Record<string, unknown>, id: number | string = 1) {
  return { headers: mirroredHeaders(method, params), body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta() } }) };
}

/** A complete head for `path` whose JSON body (1,000 bytes declared) then arrives one byte every DRIP_MS. */
function trickleBody(port: number, headers: Record<string, string>, path = '/mcp'): Promise<Socket> {
  const { headers: mirrored } = rpc('tools/list', {});
  return trickle(port, requestHead('POST', path, { host: `127.0.0.1:${port}`, ...mirrored, ...headers, 'content-length': '1000' }) + '{');
}

/** A `subscriptions/listen` stream under `token`, closed after the test. */
async function listenStream(port: number, token: string): Promise<Socket> {
  const socket = await openListenStream(port, { authorization: `Bearer ${token}` });
  opened.push(socket);
  return socket;
}

/** `tools/call list_connections` with `token` on a fresh connection, and how long its answer took. */
async function listConnections(port: number, token: string): Promise<{ reply: Reply; ms: number }> {
  const { headers, body } = rpc('tools/call', { name: 'list_connections', arguments: {} }, 'newcomer');
  const asked = performance.now();
  const reply = await rawRequest(port, { headers: { ...headers, authorization: `Bearer ${token}` }, body });
  return { reply, ms: performance.now() - asked };
}

function expectTooManyConnections(reply: Reply, max: number): void {
  expect(reply.status).toBe(503);
  expect(reply.headers.connection).toBe('close');
  expect(reply.headers['retry-after']).toBe('1');
  expect(reply.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -33000, message: `Too many connections: at most ${max}` } });
}

const isOpen = (socket: Socket) => !socket.destroyed && !socket.readableEnded;

describe('at the contract cap of 64', () => {
  let app: TestApp;
  let token: string;
  /** The answer to the newcomer's request on a calm server, to compare with the one under the trickle. */
  let calm: Reply;
  beforeAll(async () => {
    app = await startTestApp({ auth: true, consolePort: false });
    token = mintToken(app, 'newcomer', 'readOnly').plaintext;
    calm = (await listConnections(app.port, token)).reply;
    expect(calm.status).toBe(200);
    expect(calm.json.result.structuredContent.connections.map((c: { id: string }) => c.id)).toContain('demo');
  });
  afterAll(() => app?.dispose());

  it(`${MAX} sockets trickling a head: a client with a token gets its real answer within 2 s, and the longest-waiting trickler is the one closed`, async () => {
    const slow: Socket[] = [];
    for (let i = 0; i < MAX; i++) slow.push(await trickleHead(app.port));
    const timings: number[] = [];
    for (let round = 0; round < 3; round++) {
      const { reply, ms } = await listConnections(app.port, token);
      expect(reply.status).toBe(200);
      expect(fenceNamesBlanked(reply.json)).toEqual(fenceNamesBlanked({ ...calm.json, id: 'newcomer' }));
      expect(ms).toBeLessThan(2_000);
      timings.push(ms);
      // Each newcomer took the slot of the trickler that had waited longest, and of no other.
      await closedWithin(slow[round] as Socket, 2_000);
      expect(slow.slice(round + 1).every(isOpen)).toBe(true);
      // One more trickler fills the cap again.
      slow.push(await trickleHead(app.port));
    }
    console.log(`newcomer under ${MAX} trickling heads answered in ${timings.map((ms) => ms.toFixed(1)).join(', ')} ms`);
  });

  it(`with ${MAX} listen streams open, a newcomer gets the contract's 503 -33000 and no stream is closed`, async () => {
    // Eight tokens of eight streams each: a token may hold eight streams.
    const streams: Socket[] = [];
    for (let t = 0; t < MAX / 8; t++) {
      const holder = mintToken(app, `holder-${t}`, 'readOnly').plaintext;
      for (let s = 0; s < 8; s++) streams.push(await listenStream(app.port, holder));
    }
    expectTooManyConnections((await listConnections(app.port, token)).reply, MAX);
    expect(streams.every(isOpen)).toBe(true);
    for (const stream of streams) stream.destroy();
    await expect.poll(async () => (await listConnections(app.port, token)).reply.status).toBe(200);
  });

  it('the production head deadline: a head still trickling after 5 s is answered 408 and closed within 5 s + the 0.5 s check', { timeout: 15_000 }, async () => {
    const socket = await open(app.port);
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${app.port}\r\nX-Slow: `);
    drips.push(setInterval(() => socket.destroyed || socket.write('a'), 250));
    const answered = readResponse(socket, 10_000);
    const cut = await closedWithin(socket, TRANSPORT.headersTimeoutMs + TRANSPORT.connectionsCheckingIntervalMs + 500);
    expect((await answered).status).toBe(408);
    expect(cut).toBeGreaterThanOrEqual(TRANSPORT.headersTimeoutMs - 100);
    expect(TRANSPORT.headersTimeoutMs).toBeLessThanOrEqual(5_000);
  });
});

/** The request deadline, shortened so that a test can see a trickling body cut (the head deadline, 2 s, stays long enough for the others). */
const REQUEST_MS = 3_000;

describe('which connection gives way (a cap of 4; the request deadline shortened)', () => {
  let app: TestApp;
  let token: string;
  beforeAll(async () => {
    app = await startTestApp({ auth: true, consolePort: false, limits: { ...TRANSPORT, maxConnections: MAX_SMALL, headersTimeoutMs: 2_000, requestTimeoutMs: REQUEST_MS } });
    token = mintToken(app, 'newcomer', 'readOnly').plaintext;
  });
  afterAll(() => app?.dispose());

  it('the one waiting longest on its client: an unfinished head before a keep-alive idle since later, whatever their age', async () => {
    const keepAlive = await open(app.port);
    const head = await trickleHead(app.port);
    const { headers, body } = rpc('tools/list', {});
    const first = await sendRaw(keepAlive, { headers: { ...headers, authorization: `Bearer ${token}`, connection: 'keep-alive' }, body });
    expect(first.status).toBe(200);
    const later = [await trickleHead(app.port), await trickleHead(app.port)];
    expect((await listConnections(app.port, token)).reply.status).toBe(200);
    await closedWithin(head, 2_000);
    expect([keepAlive, ...later].every(isOpen)).toBe(true);
    later.push(await trickleHead(app.port));
    expect((await listConnections(app.port, token)).reply.status).toBe(200);
    await closedWithin(keepAlive, 2_000);
    expect(later.every(isOpen)).toBe(true);
  });

  it('a caller refused before its body (no token) gives way while it still uploads', async () => {
    const refused: Socket[] = [];
    for (let i = 0; i < 4; i++) refused.push(await trickleBody(app.port, {}));
    // Each holds a slot: one refused for want of a slot would have had its 503 and been closed by now.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(refused.every(isOpen)).toBe(true);
    const { reply } = await listConnections(app.port, token);
    expect(reply.status).toBe(200);
    expect(reply.json.result.structuredContent.connections.map((c: { id: string }) => c.id)).toContain('demo');
    await closedWithin(refused[0] as Socket, 2_000);
    expect(refused.slice(1).every(isOpen)).toBe(true);
  });

  it('a pairing exchange whose body still arrives gives way (who asks is known only from the body)', async () => {
    const exchanges: Socket[] = [];
    for (let i = 0; i < 4; i++) exchanges.push(await trickleBody(app.port, {}, '/v1/integrations/exchange'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(exchanges.every(isOpen)).toBe(true);
    expect((await listConnections(app.port, token)).reply.status).toBe(200);
    await closedWithin(exchanges[0] as Socket, 2_000);
    expect(exchanges.slice(1).every(isOpen)).toBe(true);
  });

  it('a body still arriving gives way, a token’s too (it waits on its client); a request being answered never does', async () => {
    const uploading = await trickleBody(app.port, { authorization: `Bearer ${token}` });
    const streams = [await listenStream(app.port, token), await listenStream(app.port, token)];
    const head = await trickleHead(app.port);
    expect((await listConnections(app.port, token)).reply.status).toBe(200);
    await closedWithin(uploading, 2_000);
    expect([head, ...streams].every(isOpen)).toBe(true);
    streams.push(await listenStream(app.port, token));
    expect((await listConnections(app.port, token)).reply.status).toBe(200);
    await closedWithin(head, 2_000);
    streams.push(await listenStream(app.port, token));
    expectTooManyConnections((await listConnections(app.port, token)).reply, 4);
    expect(streams.every(isOpen)).toBe(true);
  });

  it(`${MAX_SMALL} bodies of a valid token trickling: another client still gets its answer, and the oldest upload gave way`, async () => {
    const uploads: Socket[] = [];
    for (let i = 0; i < MAX_SMALL; i++) uploads.push(await trickleBody(app.port, { authorization: `Bearer ${token}` }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(uploads.every(isOpen)).toBe(true);
    const { reply } = await listConnections(app.port, token);
    expect(reply.status).toBe(200);
    expect(reply.json.result.structuredContent.connections.map((c: { id: string }) => c.id)).toContain('demo');
    await closedWithin(uploads[0] as Socket, 2_000);
    expect(uploads.slice(1).every(isOpen)).toBe(true);
  });

  it('a token’s body still arriving at the request deadline is answered 408 and closed', async () => {
    const socket = await trickleBody(app.port, { authorization: `Bearer ${token}` });
    const answered = readResponse(socket, REQUEST_MS + 2_000);
    const cut = await closedWithin(socket, REQUEST_MS + TRANSPORT.connectionsCheckingIntervalMs + 500);
    expect(cut).toBeGreaterThanOrEqual(REQUEST_MS - 100);
    expect((await answered).status).toBe(408);
  });
});

describe('the console, with the same slots', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ consolePort: 0 });
  });
  afterAll(() => app?.dispose());

  const consolePort = () => app.console!.port;
  const signInPage = () => rawRequest(consolePort(), { method: 'GET', path: '/signin' });

  it(`${MAX} sockets trickling a head: the sign-in page still answers within 2 s`, async () => {
    const slow: Socket[] = [];
    for (let i = 0; i < MAX; i++) slow.push(await trickleHead(consolePort()));
    const asked = performance.now();
    expect((await signInPage()).status).toBe(200);
    expect(performance.now() - asked).toBeLessThan(2_000);
    await closedWithin(slow[0] as Socket, 2_000);
    expect(slow.slice(1).every(isOpen)).toBe(true);
  });

  it(`${MAX} sign-ins whose body trickles: the sign-in page still answers, and the oldest of them gave way`, async () => {
    const origin = `http://127.0.0.1:${consolePort()}`;
    const slow: Socket[] = [];
    for (let i = 0; i < MAX; i++) slow.push(await trickleBody(consolePort(), { origin }, '/api/session'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(slow.every(isOpen)).toBe(true);
    expect((await signInPage()).status).toBe(200);
    await closedWithin(slow[0] as Socket, 2_000);
    expect(slow.slice(1).every(isOpen)).toBe(true);
  });

  it(`with ${MAX} event streams open, a newcomer gets 503 too_many_connections and no stream is closed`, async () => {
    const client = await openConsole(app);
    const streams: Socket[] = [];
    for (let i = 0; i < MAX; i++) {
      const socket = await open(consolePort());
      const started = new Promise<void>((resolve) => socket.once('data', () => resolve()));
      socket.write(requestHead('GET', '/api/events', { host: `127.0.0.1:${consolePort()}`, authorization: `Bearer ${client.session}` }));
      await started;
      streams.push(socket);
    }
    const reply = await signInPage();
    expect(reply.status).toBe(503);
    expect(reply.headers.connection).toBe('close');
    expect(reply.json).toEqual({ error: 'too_many_connections', error_description: `too many connections: at most ${MAX}` });
    expect(streams.every(isOpen)).toBe(true);
  });

  it('a head still trickling after the head deadline is answered 408 and closed', { timeout: 15_000 }, async () => {
    const socket = await open(consolePort());
    socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${consolePort()}\r\nX-Slow: `);
    drips.push(setInterval(() => socket.destroyed || socket.write('a'), 250));
    const answered = readResponse(socket, 10_000);
    await closedWithin(socket, TRANSPORT.headersTimeoutMs + TRANSPORT.connectionsCheckingIntervalMs + 500);
    expect((await answered).status).toBe(408);
  });
});
