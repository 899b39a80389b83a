import { Agent, request } from 'node:http';
import { REQUEST_TIMEOUT_MS } from './fuzzBudget.js';

/** One answer as read off the wire: header names lower-cased, repeated headers joined with `, `. */
export type WireReply = {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** For `text/event-stream`: the `data:` of each frame, in order (keep-alive comments left out). */
  frames?: string[];
  /** True when the client ended a stream that stays open by design (`subscriptions/listen`). */
  cut?: boolean;
};

export type WireRequest = {
  path?: string;
  method?: string;
  /** Sent as given; a list is sent as one header line per item. */
  headers?: Record<string, string | string[]>;
  body?: string | Uint8Array;
};

function isListenAck(data: string): boolean {
  try {
    return (JSON.parse(data) as { method?: unknown }).method === 'notifications/subscriptions/acknowledged';
  } catch {
    return false;
  }
}

/** Splits an event stream into the data of its frames; `rest` is an unfinished frame. */
export function splitFrames(text: string): { frames: string[]; rest: string } {
  const pieces = text.split('\n\n');
  const rest = pieces.pop() ?? '';
  const frames: string[] = [];
  for (const piece of pieces) {
    const data = piece
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''));
    if (data.length > 0) frames.push(data.join('\n'));
  }
  return { frames, rest };
}

/**
 * A keep-alive HTTP/1.1 client for fuzzing one server: node:http sends exactly the headers given (plus
 * Host, Connection and Content-Length), and every request is bounded by `timeoutMs` — a slower answer
 * rejects, so that a hang fails the property instead of stalling the run.
 */
export class FuzzClient {
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 4 });
  readonly #port: number;
  readonly #timeoutMs: number;

  constructor(port: number, timeoutMs = REQUEST_TIMEOUT_MS) {
    this.#port = port;
    this.#timeoutMs = timeoutMs;
  }

  send(wire: WireRequest): Promise<WireReply> {
    const body = wire.body === undefined ? undefined : Buffer.from(wire.body as never);
    const headers: Record<string, string | string[]> = { ...(wire.headers ?? {}) };
    if (body !== undefined) headers['Content-Length'] = String(body.length);
    return new Promise<WireReply>((resolve, reject) => {
      let settled = false;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
      };
      const req = request(
        {
          host: '127.0.0.1',
          port: this.#port,
          method: wire.method ?? 'POST',
          path: wire.path ?? '/mcp',
          headers,
          agent: this.#agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          const streaming = (res.headers['content-type'] ?? '').startsWith('text/event-stream');
          const reply = (cut: boolean): WireReply => {
            const text = Buffer.concat(chunks).toString('utf8');
            const out: Record<string, string> = {};
            for (const [name, value] of Object.entries(res.headers)) {
              if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
            }
            return {
              status: res.statusCode ?? 0,
              headers: out,
              text,
              ...(streaming ? { frames: splitFrames(`${text}\n\n`).frames, cut } : {}),
            };
          };
          res.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            if (!streaming) return;
            const { frames } = splitFrames(Buffer.concat(chunks).toString('utf8'));
            // A subscription stays open until the client leaves: its acknowledgement is all there is to check.
            if (frames.length === 1 && isListenAck(frames[0] as string)) {
              finish(() => resolve(reply(true)));
              res.destroy();
            }
          });
          res.on('error', (error) => finish(() => reject(error)));
          res.on('end', () => finish(() => resolve(reply(false))));
          res.on('close', () => finish(() => reject(new Error('the response closed before its end'))));
        },
      );
      const timer = setTimeout(() => {
        finish(() => reject(new Error(`no complete response within ${this.#timeoutMs} ms (a hang)`)));
        req.destroy();
      }, this.#timeoutMs);
      req.on('error', (error) => finish(() => reject(error)));
      req.end(body);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}
