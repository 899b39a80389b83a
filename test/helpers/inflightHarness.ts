import { channel } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimulatedClock } from 'xstate';
import type { AppOptions } from '../../src/app/app.js';
import type { PermissionLevel } from '../../src/auth/levels.js';
import { type HeldTool, heldTool } from './heldTool.js';
import { mirroredHeaders, modernMeta, sseFrames, startTestApp, type TestApp } from './testApp.js';

/** Names a test request, so that the test can find the server's side of it (see `closedOnServer`). */
export const TEST_REQUEST_HEADER = 'x-sluice-test-request';

// ---------------------------------------------------------------------------------------------------
// The server's side of a test request. The app runs in this process, so Node's `http.server.request.start`
// diagnostics channel hands us the server's ServerResponse of each request: the one whose 'close' event
// the endpoint turns into "the client is gone". A test that drops a connection waits for that event, so
// that the next poll of the (simulated) clock is sure to see the connection closed. Nothing in src/ is
// touched.

const requestStart = channel('http.server.request.start');
type Closing = { promise: Promise<void>; resolve: () => void };
const closings = new Map<string, Closing>();
let subscribers = 0;

function closing(key: string): Closing {
  let entry = closings.get(key);
  if (!entry) {
    let resolve = () => {};
    const promise = new Promise<void>((r) => (resolve = r));
    entry = { promise, resolve };
    closings.set(key, entry);
  }
  return entry;
}

function onRequestStart(message: unknown): void {
  const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
  const key = request.headers[TEST_REQUEST_HEADER];
  if (typeof key !== 'string') return;
  const entry = closing(key);
  response.once('close', () => entry.resolve());
}

function watchServerResponses(): () => void {
  if (subscribers++ === 0) requestStart.subscribe(onRequestStart);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (--subscribers === 0) requestStart.unsubscribe(onRequestStart);
  };
}

/** Resolves once the server's response of the test request `key` emitted 'close' (its socket is gone). */
export function closedOnServer(key: string): Promise<void> {
  return closing(key).promise;
}

let sequence = 0;
/** A key unique in this test process. */
export const nextKey = (prefix = 'req') => `${prefix}-${++sequence}`;

// ---------------------------------------------------------------------------------------------------

export type Caller = { name: string; tokenId: string; token: string };

/** A finished HTTP exchange; `message` is the JSON-RPC response (the body, or an event stream's last frame). */
export type Reply = {
  status: number;
  contentType: string;
  text: string;
  /** The frames of a `text/event-stream` response, in order. */
  frames: any[] | undefined;
  message: any;
};

function toReply(status: number, contentType: string, text: string): Reply {
  if (contentType.startsWith('text/event-stream')) {
    const frames = sseFrames(text).data;
    return { status, contentType, text, frames, message: frames.at(-1) };
  }
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    message = undefined;
  }
  return { status, contentType, text, frames: undefined, message };
}

async function readReply(response: Response): Promise<Reply> {
  return toReply(response.status, response.headers.get('content-type') ?? '', await response.text());
}

/** One request in flight from the test's side: its answer, or `dropped` once the test dropped it. */
export class Flight {
  readonly #controller = new AbortController();
  #settled = false;
  #text = '';
  #onText: (() => void)[] = [];
  /** Never rejects: a failure that is not the test's own drop is a reply with status 0. */
  readonly reply: Promise<Reply | 'dropped'>;

  constructor(
    url: string,
    readonly key: string,
    readonly id: string | number,
    readonly caller: Caller | undefined,
    body: string,
    headers: Record<string, string>,
  ) {
    this.reply = this.#exchange(url, body, headers)
      .catch((error: unknown): Reply | 'dropped' =>
        this.#controller.signal.aborted
          ? 'dropped'
          : { status: 0, contentType: '', text: String(error), frames: undefined, message: undefined },
      )
      .finally(() => {
        this.#settled = true;
        this.#wake();
      });
  }

  async #exchange(url: string, body: string, headers: Record<string, string>): Promise<Reply> {
    const response = await fetch(url, { method: 'POST', headers, body, signal: this.#controller.signal });
    // Read as it arrives, so that a test can wait for a progress frame of a response still streaming.
    const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      this.#text += chunk.value;
      this.#wake();
    }
    return toReply(response.status, response.headers.get('content-type') ?? '', this.#text);
  }

  #wake(): void {
    for (const wake of this.#onText.splice(0)) wake();
  }

  /** Whether the client has its answer (or gave up on it). */
  get settled(): boolean {
    return this.#settled;
  }

  /** Resolves once the response received so far contains `marker`; rejects if it ended without it. */
  async until(marker: string): Promise<void> {
    while (!this.#text.includes(marker)) {
      if (this.#settled) throw new Error(`request ${this.key} ended before ${marker}: ${this.#text}`);
      await new Promise<void>((wake) => this.#onText.push(wake));
    }
  }

  /** The client goes away: the fetch is aborted, its socket destroyed. Resolves once the server saw it close. */
  drop(): Promise<void> {
    this.#controller.abort();
    return closedOnServer(this.key);
  }

  /** The answer; fails the test if the request was dropped. */
  async answer(): Promise<Reply> {
    const reply = await this.reply;
    if (reply === 'dropped') throw new Error(`request ${this.key} was dropped by the test`);
    return reply;
  }
}

export type HarnessOptions = {
  /** The app's clock; the real one when absent. */
  clock?: SimulatedClock;
  /** Further app options (limits, more capabilities). */
  app?: Partial<AppOptions>;
};

/**
 * A real Sluice with authentication on, a test-only held tool (`heldTool`), and the client side of the
 * contract's "Request in flight" table: calls under several tokens, `notifications/cancelled`, revocation,
 * dropped connections.
 */
export class InflightHarness {
  readonly #unwatch: () => void;
  #minted = 0;

  private constructor(
    readonly app: TestApp,
    readonly tool: HeldTool,
    readonly clock: SimulatedClock | undefined,
    readonly baseline: number,
    unwatch: () => void,
  ) {
    this.#unwatch = unwatch;
  }

  static async start(options: HarnessOptions = {}): Promise<InflightHarness> {
    const tool = heldTool();
    const unwatch = watchServerResponses();
    try {
      const app = await startTestApp({
        auth: true,
        ...(options.clock ? { clock: options.clock } : {}),
        ...options.app,
        extraCapabilities: [tool.module, ...(options.app?.extraCapabilities ?? [])],
      });
      return new InflightHarness(app, tool, options.clock, app.liveActors(), unwatch);
    } catch (error) {
      unwatch();
      throw error;
    }
  }

  now(): number {
    return this.clock ? this.clock.now() : Date.now();
  }

  /** A new token (never expires, every connection) as a caller. */
  mint(name = `caller ${++this.#minted}`, level: PermissionLevel = 'readWrite'): Caller {
    const { record, plaintext } = this.app.tokens.mint({
      name,
      level,
      connections: 'all',
      expiresInDays: null,
      now: this.now(),
    });
    return { name, tokenId: record.id, token: plaintext };
  }

  /** What the console's Revoke does. */
  revoke(caller: Caller): void {
    this.app.tokens.revoke(caller.tokenId, this.now());
  }

  /** Sends `tools/call` of `name` with `args`; with `progressToken` the answer is an event stream. */
  call(
    caller: Caller | undefined,
    id: string | number,
    name: string,
    args: Record<string, unknown>,
    options: { progressToken?: string | number; key?: string } = {},
  ): Flight {
    const key = options.key ?? nextKey();
    const params = { name, arguments: args };
    const meta = modernMeta(options.progressToken === undefined ? {} : { progressToken: options.progressToken });
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { ...params, _meta: meta } });
    const headers: Record<string, string> = { ...mirroredHeaders('tools/call', params), [TEST_REQUEST_HEADER]: key };
    if (caller) headers.authorization = `Bearer ${caller.token}`;
    return new Flight(this.app.url, key, id, caller, body, headers);
  }

  /** Calls the held tool and resolves once the call reached it (its in-flight actor is running). */
  async hold(caller: Caller, id: string | number, options: { progressToken?: string | number } = {}): Promise<Flight> {
    const key = nextKey('held');
    const args = options.progressToken === undefined ? { key } : { key, progress: true };
    const flight = this.call(caller, id, this.tool.name, args, { ...options, key });
    await Promise.race([
      this.tool.started(key),
      flight.reply.then((reply) => {
        throw new Error(`call ${key} was answered before it reached the tool: ${JSON.stringify(reply)}`);
      }),
    ]);
    return flight;
  }

  /** `notifications/cancelled` for `requestId`, under the caller's token. */
  async cancel(caller: Caller | undefined, requestId: unknown, reason?: string): Promise<Reply> {
    const params: Record<string, unknown> = { requestId, ...(reason === undefined ? {} : { reason }) };
    const body = JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { ...params, _meta: modernMeta() },
    });
    const headers: Record<string, string> = mirroredHeaders('notifications/cancelled', params);
    if (caller) headers.authorization = `Bearer ${caller.token}`;
    return readReply(await fetch(this.app.url, { method: 'POST', headers, body }));
  }

  async dispose(): Promise<void> {
    try {
      await this.app.dispose();
    } finally {
      this.#unwatch();
    }
  }
}
