import type { ConsoleServer } from '../../src/console/consoleServer.js';
import { parseJson } from './testApp.js';

/**
 * The console as its page uses it (docs/console.md): signed in once with the one-time link (its page, then
 * `POST /api/session`), then the session as `Authorization: Bearer …` on every API request, the console's
 * own `Origin` and `application/json` on every POST, and the two server-sent event streams read frame by
 * frame. Every body it receives is kept in `transcript`, so a test can say that a secret never reached the
 * page.
 */

export type ConsoleReply = { status: number; headers: Headers; text: string; json: any };

/** One server-sent event: its `event:` name when it has one, and its `data:` parsed as JSON. */
export type SseFrame = { event?: string; data: any; raw: string };

export type ConsoleEvents = {
  /** The response's status and headers (the stream is open while they are 200 / text/event-stream). */
  readonly status: number;
  readonly headers: Headers;
  /** Every frame received so far, in order. */
  readonly frames: SseFrame[];
  /** Everything received on the stream so far, `:` keep-alive comments included. */
  text(): string;
  /**
   * The next frame after the last one `next` returned that matches `predicate` (any frame without one);
   * rejects after `timeoutMs` or when the stream ends first.
   */
  next(predicate?: (frame: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame>;
  /** Resolves once no frame has arrived for `quietMs` (what the server had to say has been said). */
  settle(quietMs?: number): Promise<void>;
  /** The frames not yet returned by `next`; `next` then waits for frames after them. */
  drain(): SseFrame[];
  /** The frames, as `next` returns them, until the stream ends. */
  [Symbol.asyncIterator](): AsyncIterator<SseFrame>;
  close(): Promise<void>;
};

export type RequestOptions = {
  /** Extra headers, or replacements; `null` removes a default one (`authorization`, `origin`, `content-type`). */
  headers?: Record<string, string | null>;
};

export type PostOptions = RequestOptions & {
  /** The `Origin` sent; `null` sends none. Default: the console's own, `http://127.0.0.1:<port>`. */
  origin?: string | null;
  /** The `Content-Type` sent; `null` sends none. Default: `application/json`. */
  contentType?: string | null;
};

export type ConsoleClient = {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** The session id, as `POST /api/session` answered it. */
  readonly session: string;
  /** Every response body (and every event stream's text) this client has received. */
  transcript(): string;
  request(method: string, path: string, options?: RequestOptions & { body?: string }): Promise<ConsoleReply>;
  get(path: string, options?: RequestOptions): Promise<ConsoleReply>;
  /** POSTs `body` (JSON-encoded unless it is a string, sent as it is). */
  post(path: string, body: unknown, options?: PostOptions): Promise<ConsoleReply>;
  /** `POST /api/<command>`: the reply's JSON when it is 200, else throws with the status and body. */
  command(name: string, params?: Record<string, unknown>): Promise<any>;
  /** GET /api/state's JSON. */
  state(): Promise<any>;
  events(path: string): Promise<ConsoleEvents>;
};

export function consoleOf(app: { console: ConsoleServer | undefined }): ConsoleServer {
  if (!app.console) throw new Error('the application runs without a console');
  return app.console;
}

/** Signs in with the application's current one-time link. */
export function openConsole(app: { console: ConsoleServer | undefined }): Promise<ConsoleClient> {
  return openConsoleLink(consoleOf(app).openUrl());
}

/** `GET` of a one-time link, redirects not followed: the raw reply (its sign-in page, or the page for a spent or wrong link). */
export async function visitLink(link: string): Promise<ConsoleReply> {
  const response = await fetch(link, { redirect: 'manual' });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: parseJson(text) };
}

/** `POST /api/session {secret}` from the console's own origin (or the `origin` given): the raw reply. */
export async function exchangeSecret(consoleOrigin: string, secret: string, origin = consoleOrigin): Promise<ConsoleReply> {
  const response = await fetch(new URL('/api/session', consoleOrigin), {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: JSON.stringify({ secret }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: parseJson(text) };
}

/** Signs in as the link's page does: the link must answer its sign-in page, and its secret a session. */
export async function openConsoleLink(link: string): Promise<ConsoleClient> {
  const page = await visitLink(link);
  if (page.status !== 200) throw new Error(`the console link answered ${page.status}: ${page.text}`);
  const url = new URL(link);
  const reply = await exchangeSecret(url.origin, url.searchParams.get('secret') ?? '');
  if (reply.status !== 200 || typeof reply.json?.session !== 'string') {
    throw new Error(`POST /api/session answered ${reply.status}: ${reply.text}`);
  }
  return consoleClient(url.origin, reply.json.session);
}

/** A client of the console at `origin` holding the given session id (a forged one, for the negative tests). */
export function consoleClient(origin: string, session: string): ConsoleClient {
  const port = Number(new URL(origin).port);
  const received: string[] = [];

  function headersOf(defaults: Record<string, string>, extra: Record<string, string | null> = {}): Record<string, string> {
    const headers: Record<string, string> = { authorization: `Bearer ${session}`, ...defaults };
    for (const [name, value] of Object.entries(extra)) {
      if (value === null) delete headers[name.toLowerCase()];
      else headers[name.toLowerCase()] = value;
    }
    return headers;
  }

  async function request(method: string, path: string, options: RequestOptions & { body?: string } = {}): Promise<ConsoleReply> {
    const response = await fetch(new URL(path, origin), {
      method,
      redirect: 'manual',
      headers: headersOf({}, options.headers),
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
    const text = await response.text();
    received.push(text);
    return { status: response.status, headers: response.headers, text, json: parseJson(text) };
  }

  function post(path: string, body: unknown, options: PostOptions = {}): Promise<ConsoleReply> {
    const defaults: Record<string, string | null> = {
      origin: options.origin === undefined ? origin : options.origin,
      'content-type': options.contentType === undefined ? 'application/json' : options.contentType,
    };
    return request('POST', path, {
      headers: { ...defaults, ...options.headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  async function events(path: string): Promise<ConsoleEvents> {
    const abort = new AbortController();
    const response = await fetch(new URL(path, origin), {
      headers: headersOf({ accept: 'text/event-stream' }),
      signal: abort.signal,
    });
    const frames: SseFrame[] = [];
    let text = '';
    let buffer = '';
    let ended: Error | undefined;
    let cursor = 0;
    const wakers = new Set<() => void>();
    const wake = () => {
      for (const waker of wakers) waker();
    };

    const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      try {
        for (;;) {
          const chunk = await reader.read();
          if (chunk.done) break;
          text += chunk.value;
          buffer += chunk.value;
          received.push(chunk.value);
          for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
            const raw = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const frame = parseFrame(raw);
            if (frame) frames.push(frame);
          }
          wake();
        }
        ended = new Error('the event stream ended');
      } catch (error) {
        ended = error as Error;
      }
      wake();
    })();

    async function next(predicate: (frame: SseFrame) => boolean = () => true, timeoutMs = 2_000): Promise<SseFrame> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        while (cursor < frames.length) {
          const frame = frames[cursor++] as SseFrame;
          if (predicate(frame)) return frame;
        }
        if (ended) throw new Error(`${ended.message} before the awaited frame; received: ${text}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no matching frame within ${timeoutMs} ms; received: ${text}`);
        await new Promise<void>((resolve) => {
          const waker = () => {
            clearTimeout(timer);
            wakers.delete(waker);
            resolve();
          };
          const timer = Number.isFinite(left) ? setTimeout(waker, left) : undefined;
          wakers.add(waker);
        });
      }
    }

    async function settle(quietMs = 150): Promise<void> {
      let seen = -1;
      while (seen !== frames.length) {
        seen = frames.length;
        await new Promise((resolve) => setTimeout(resolve, quietMs));
      }
    }

    return {
      status: response.status,
      headers: response.headers,
      frames,
      text: () => text,
      next,
      settle,
      drain() {
        const unread = frames.slice(cursor);
        cursor = frames.length;
        return unread;
      },
      async *[Symbol.asyncIterator]() {
        for (;;) {
          if (cursor >= frames.length && ended) return;
          try {
            yield await next(undefined, Number.POSITIVE_INFINITY);
          } catch (error) {
            if (ended && cursor >= frames.length) return;
            throw error;
          }
        }
      },
      async close() {
        abort.abort();
        await reader.cancel().catch(() => undefined);
      },
    };
  }

  return {
    port,
    origin,
    session,
    transcript: () => received.join('\n'),
    request,
    get: (path, options) => request('GET', path, options),
    post,
    async command(name, params = {}) {
      const reply = await post(`/api/${name}`, params);
      if (reply.status !== 200) throw new Error(`${name} answered ${reply.status}: ${reply.text}`);
      return reply.json;
    },
    async state() {
      const reply = await request('GET', '/api/state');
      if (reply.status !== 200) throw new Error(`/api/state answered ${reply.status}: ${reply.text}`);
      return reply.json;
    },
    events,
  };
}

/** One `text/event-stream` block: `undefined` for a comment-only block (the keep-alive). */
function parseFrame(raw: string): SseFrame | undefined {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of raw.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (event === undefined && data.length === 0) return undefined;
  const joined = data.join('\n');
  return { ...(event !== undefined ? { event } : {}), data: parseJson(joined) ?? joined, raw };
}
