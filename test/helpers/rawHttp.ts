import { type IncomingMessage, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { mirroredHeaders, modernMeta, parseJson, type RawResponse } from './testApp.js';

/**
 * HTTP as `fetch` will not send it, for the transport suites: node:http requests with full control over
 * the headers (`rawRequest`, `rawPost`, `rawMcp`), and raw TCP (node:net) for every byte of a request
 * that node:http would rewrite (an empty or missing Host, a repeated header), HTTP/1.0, or a body sent
 * piece by piece (`sendRaw`, `exchangeRaw`).
 */

/** A response read off the wire: header names lower-cased, repeated headers joined with `, `. */
export type Reply = { status: number; headers: Record<string, string>; text: string; json: any };

export type RawRequestOptions = {
  method?: string;
  path?: string;
  /** Sent as given (names keep their case); a list value is sent as one header line per item. */
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** `false`: send no Host header unless `headers` names one. */
  setHost?: boolean;
};

/**
 * One request with node:http on its own connection (`agent: false`, so `Connection: close` and nothing
 * pooled), with full control over `Host`. node:http adds no default headers of its own besides `Host`,
 * `Connection` and the body's framing.
 */
export function rawRequest(port: number, options: RawRequestOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'POST',
        path: options.path ?? '/mcp',
        headers: options.headers ?? {},
        agent: false,
        setHost: options.setHost ?? true,
      },
      (res) => collectReply(res).then(resolve, reject),
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

function collectReply(res: IncomingMessage): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('error', reject);
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      resolve({ status: res.statusCode ?? 0, headers, text, json: parseJson(text) });
    });
  });
}

/**
 * POSTs with node:http, which sends exactly the headers given (plus Host and Content-Length, and with
 * the header names' case kept on the wire): unlike fetch, it adds no default Content-Type.
 */
export function rawPost(
  url: string,
  body: string,
  headers: Record<string, string | string[]>,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } },
      (res) =>
        collectReply(res).then((reply) => resolve({ ...reply, headers: new Headers(reply.headers) }), reject),
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Sends one modern JSON-RPC request like `mcp` in testApp.ts, but over node:http with `rawPost`: the
 * mirrored headers, where `headers` replace one of the same name (whatever its case, and sent in the case
 * given), a list value is sent as one header line per item, and `null` leaves a header out.
 */
export function rawMcp(
  app: { url: string },
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | string[] | null> = {},
): Promise<RawResponse> {
  const sent = new Map<string, [string, string | string[]]>();
  for (const [name, value] of Object.entries({ ...mirroredHeaders(method, params), ...headers })) {
    if (value === null) sent.delete(name.toLowerCase());
    else sent.set(name.toLowerCase(), [name, value]);
  }
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: modernMeta() } });
  return rawPost(app.url, body, Object.fromEntries(sent.values()));
}

// ---------------------------------------------------------------------------------------------------
// Raw TCP: every byte of the request as the test writes it.

export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      // A reset from the server after a test is done with the socket is not a failure.
      socket.on('error', () => {});
      resolve(socket);
    });
  });
}

/** Opens a connection to `port`, hands it to `use`, and always destroys it afterwards. */
export async function withSocket<T>(port: number, use: (socket: Socket) => Promise<T>): Promise<T> {
  const socket = await openSocket(port);
  try {
    return await use(socket);
  } finally {
    socket.destroy();
  }
}

/** A request head; a list value is sent as one header line per item, in order. */
export function requestHead(
  method: string,
  path: string,
  headers: Record<string, string | string[]>,
  version = '1.1',
): string {
  const lines = Object.entries(headers).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((item) => `${name}: ${item}\r\n`),
  );
  return `${method} ${path} HTTP/${version}\r\n${lines.join('')}\r\n`;
}

/**
 * Resolves with the first complete HTTP response read from `socket` (a response without `Content-Length`
 * is complete at the end of its head), or rejects when the socket closes before one arrived.
 */
export function readResponse(socket: Socket, timeoutMs = 10_000): Promise<Reply> {
  return new Promise((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      outcome();
    };
    const tryParse = (): Reply | undefined => {
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return undefined;
      const [statusLine = '', ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
      }
      const length = Number(headers['content-length'] ?? 0);
      if (buffer.length < end + 4 + length) return undefined;
      const text = buffer.subarray(end + 4, end + 4 + length).toString('utf8');
      return { status: Number(statusLine.split(' ')[1]), headers, text, json: parseJson(text) };
    };
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const reply = tryParse();
      if (reply) finish(() => resolve(reply));
    };
    const onClose = () => {
      const reply = tryParse();
      finish(() =>
        reply
          ? resolve(reply)
          : reject(
              new Error(`connection closed before a full response: ${JSON.stringify(buffer.toString())}`),
            ),
      );
    };
    const timer = setTimeout(
      () => finish(() => reject(new Error(`no response within ${timeoutMs} ms`))),
      timeoutMs,
    );
    socket.on('data', onData);
    socket.on('close', onClose);
  });
}

/** Resolves with the milliseconds until the server closed `socket`; rejects if it is still open at `withinMs`. */
export function closedWithin(socket: Socket, withinMs: number): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    if (socket.destroyed) {
      resolve(0);
      return;
    }
    const timer = setTimeout(() => reject(new Error(`socket still open after ${withinMs} ms`)), withinMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(performance.now() - started);
    });
    socket.resume();
  });
}

/**
 * Writes `pieces` to `socket` in order, honouring back-pressure, and stops early as soon as `answered`
 * settles or the socket closes (the server may refuse an upload before it has all been sent).
 */
export async function writeUntilAnswered(
  socket: Socket,
  pieces: Iterable<Buffer>,
  answered: Promise<unknown>,
) {
  let stop = false;
  const stopped = new Promise<void>((resolve) => {
    const halt = () => {
      stop = true;
      resolve();
    };
    answered.then(halt, halt);
    socket.once('close', halt);
  });
  for (const piece of pieces) {
    if (stop || socket.destroyed) return;
    if (!socket.write(piece)) {
      await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), stopped]);
    }
  }
}

/** `payload` as HTTP/1.1 chunked transfer coding, 1 MB per chunk, with the terminating chunk. */
export function* chunked(payload: Buffer, chunkSize = 1024 * 1024): Generator<Buffer> {
  for (let offset = 0; offset < payload.length; offset += chunkSize) {
    const piece = payload.subarray(offset, offset + chunkSize);
    yield Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]);
  }
  yield Buffer.from('0\r\n\r\n');
}

/** `payload` in slices of 1 MB, to be streamed with back-pressure. */
export function* slices(payload: Buffer, chunkSize = 1024 * 1024): Generator<Buffer> {
  for (let offset = 0; offset < payload.length; offset += chunkSize) {
    yield payload.subarray(offset, offset + chunkSize);
  }
}

export type RawExchange = {
  /** `POST` unless given. */
  method?: string;
  /** `/mcp` unless given. */
  path?: string;
  /** Sent in order as given; a list value is sent as one line per item. */
  headers?: Record<string, string | string[]>;
  /**
   * Sent right after the head. A string or Buffer gets a `Content-Length` unless `headers` frame the body
   * themselves; pieces (an iterable of Buffers) are streamed with back-pressure until the server answers.
   */
  body?: string | Buffer | Iterable<Buffer>;
  /** `1.1` unless given. */
  httpVersion?: string;
  /** `false`: send no Host header. By default `127.0.0.1:<port>` leads the head unless `headers` name one. */
  setHost?: boolean;
  /** How long to wait for the response; 10 s unless given. */
  timeoutMs?: number;
};

function hasHeader(headers: Record<string, unknown>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}

function isWhole(body: RawExchange['body']): body is string | Buffer {
  return typeof body === 'string' || Buffer.isBuffer(body);
}

/** Sends one request over an open `socket` and resolves with the response to it (the socket stays open). */
export async function sendRaw(socket: Socket, request: RawExchange = {}): Promise<Reply> {
  const { method = 'POST', path = '/mcp', headers = {}, body, httpVersion, setHost = true } = request;
  const framed = hasHeader(headers, 'content-length') || hasHeader(headers, 'transfer-encoding');
  const whole = isWhole(body) ? Buffer.from(body) : undefined;
  const all: Record<string, string | string[]> = {
    ...(setHost && !hasHeader(headers, 'host') ? { host: `127.0.0.1:${socket.remotePort}` } : {}),
    ...headers,
    ...(whole && !framed ? { 'content-length': String(whole.length) } : {}),
  };
  const answered = readResponse(socket, request.timeoutMs);
  socket.write(
    Buffer.concat([Buffer.from(requestHead(method, path, all, httpVersion)), whole ?? Buffer.alloc(0)]),
  );
  if (body !== undefined && !isWhole(body)) await writeUntilAnswered(socket, body, answered);
  return answered;
}

/** One raw request on a connection of its own: resolves with the parsed response; the socket is always destroyed. */
export function exchangeRaw(port: number, request: RawExchange = {}): Promise<Reply> {
  return withSocket(port, (socket) => sendRaw(socket, request));
}

/**
 * Opens `subscriptions/listen` on a connection of its own and resolves once it is acknowledged: a
 * request being answered for as long as the socket stays open. The socket is the caller's to destroy.
 */
export async function openListenStream(port: number, headers: Record<string, string> = {}): Promise<Socket> {
  const socket = await openSocket(port);
  const params = { notifications: {} };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { ...params, _meta: modernMeta() } });
  let seen = '';
  const acknowledged = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no acknowledgement within 5 s: ${seen}`)), 5_000);
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('notifications/subscriptions/acknowledged')) {
        clearTimeout(timer);
        resolve();
      }
    });
    socket.once('close', () => {
      clearTimeout(timer);
      reject(new Error(`the stream closed: ${seen}`));
    });
  });
  const head = { host: `127.0.0.1:${port}`, ...mirroredHeaders('subscriptions/listen', params), ...headers, 'content-length': String(Buffer.byteLength(body)) };
  socket.write(requestHead('POST', '/mcp', head) + body);
  await acknowledged;
  return socket;
}
