import { channel } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimulatedClock } from 'xstate';
import type { AppOptions } from '../../src/app/app.js';
import type { PermissionLevel } from '../../src/auth/levels.js';
import { type CapabilityModules, defineTool } from '../../src/capabilities/types.js';
import { ErrorCode, ProtocolError, ToolError } from '../../src/core/errors.js';
import { mirroredHeaders, modernMeta, parseJson, sseFrames, startTestApp, type TestApp } from './testApp.js';

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
// The held tool: a test-only tool whose calls stay in flight until the test ends them.

/**
 * How the test ends a held call: `resolve` (a normal result), `toolError` (a `ToolError`: an `isError`
 * result), `plainError` (an untyped `Error`, as a bug in a tool would throw), `internalError` (a
 * `ProtocolError` -32603 thrown by the handler: the in-flight request's `failed` state).
 */
export type Ending = 'resolve' | 'toolError' | 'plainError' | 'internalError';

export const TOOL_ERROR_TEXT = 'query_failed: the held call failed as the test asked';

type Call = {
  key: string;
  /** Set once the handler's AbortSignal fired; what it carried. */
  aborted: boolean;
  abortReason?: unknown;
  /** Set once the test ended the call (or the signal did). */
  over: boolean;
  end(ending: Ending): void;
};

export type HeldTool = {
  /** A capability module holding only the held tool; pass it in `extraCapabilities`. */
  module: CapabilityModules;
  name: string;
  /** Resolves once the call with this key reached the tool and its in-flight actor is running. */
  started(key: string): Promise<void>;
  /** Calls reached the tool and neither ended by the test nor aborted. */
  held(): number;
  isHeld(key: string): boolean;
  /** Whether the handler's AbortSignal of this call fired. */
  aborted(key: string): boolean;
  abortReason(key: string): unknown;
  /** Ends a held call; throws if it is not held. */
  end(key: string, ending?: Ending): void;
};

/**
 * A test-only read tool (arguments `{ key, progress? }`) whose every call is held until the test ends it
 * (`end(key, ending)`) or the request's AbortSignal fires. With `progress: true` it first reports progress
 * 0.5, so a request that carried a progress token has its event stream open while it is held. Each call
 * is remembered by its key, so a test can ask afterwards whether its signal fired.
 */
export function heldTool(name = 'hold_until_told'): HeldTool {
  const calls = new Map<string, Call>();
  const waiters = new Map<string, (() => void)[]>();
  const call = (key: string): Call => {
    const found = calls.get(key);
    if (!found) throw new Error(`no call with key ${key} reached the tool`);
    return found;
  };

  const tool = defineTool({
    name,
    title: 'Hold until told',
    description: 'Test fixture: holds each call until the test ends it or the request is aborted.',
    inputSchema: {
      type: 'object',
      properties: { key: { type: 'string', minLength: 1 }, progress: { type: 'boolean' } },
      required: ['key'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scopes: [],
    run: ({ key, progress }, ctx) =>
      new Promise((resolve, reject) => {
        if (calls.has(key)) throw new Error(`held tool: key ${key} used twice`);
        const held: Call = {
          key,
          aborted: false,
          over: false,
          end(ending) {
            if (held.over) throw new Error(`held tool: call ${key} is no longer held`);
            held.over = true;
            ctx.signal.removeEventListener('abort', onAbort);
            if (ending === 'resolve') resolve({ key });
            else if (ending === 'toolError') reject(new ToolError('query_failed', 'the held call failed as the test asked'));
            else if (ending === 'plainError') reject(new Error('a bug in the held tool'));
            else reject(new ProtocolError(ErrorCode.InternalError, 'Internal error: the held call failed as the test asked'));
          },
        };
        const onAbort = () => {
          held.aborted = true;
          held.abortReason = ctx.signal.reason;
          held.over = true;
          reject(ctx.signal.reason);
        };
        calls.set(key, held);
        if (progress) ctx.progress(0.5, 1, 'held until the test says');
        if (ctx.signal.aborted) onAbort();
        else ctx.signal.addEventListener('abort', onAbort, { once: true });
        for (const wake of waiters.get(key) ?? []) wake();
        waiters.delete(key);
      }),
  });

  return {
    module: { tools: [tool], resources: [], prompts: [] },
    name,
    // A request still running when the turn of the event loop its handler started in ends is an actor.
    started: (key) =>
      (calls.has(key) ? Promise.resolve() : new Promise<void>((resolve) => waiters.set(key, [...(waiters.get(key) ?? []), resolve]))).then(
        () => new Promise<void>((resolve) => setImmediate(resolve)),
      ),
    held: () => [...calls.values()].filter((c) => !c.over).length,
    isHeld: (key) => calls.get(key)?.over === false,
    aborted: (key) => call(key).aborted,
    abortReason: (key) => call(key).abortReason,
    end: (key, ending = 'resolve') => call(key).end(ending),
  };
}

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
  return { status, contentType, text, frames: undefined, message: parseJson(text) };
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
