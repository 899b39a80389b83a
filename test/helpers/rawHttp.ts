import { type IncomingMessage, request } from 'node:http';
import { mirroredHeaders, modernMeta, type RawResponse } from './testApp.js';

/** A response read off the wire: header names lower-cased, repeated headers joined with `, `. */
export type Reply = { status: number; headers: Record<string, string>; text: string; json: any };

/** `text` parsed as JSON, or `undefined` when it is not JSON. */
export function parseJsonText(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

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
      resolve({ status: res.statusCode ?? 0, headers, text, json: parseJsonText(text) });
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
