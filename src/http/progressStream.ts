import type { ServerResponse } from 'node:http';
import { toJsonPieces, toJsonText } from '../protocol/rawJson.js';
import { encodePieces, fitsOnePiece, writePieces } from './piecewiseJson.js';
import type { JsonRpcResponse } from '../protocol/wire.js';
import { sendJson } from './respond.js';

/**
 * The response of a request that carried a progress token: `text/event-stream`, one unnamed frame per
 * progress notification (strictly increasing `progress`; others are dropped), the response last.
 */
export class ProgressStream {
  readonly #res: ServerResponse;
  readonly #token: string | number;
  readonly #headers: Record<string, string>;
  #last = Number.NEGATIVE_INFINITY;
  #open = false;

  constructor(res: ServerResponse, token: string | number, headers: Record<string, string>) {
    this.#res = res;
    this.#token = token;
    this.#headers = headers;
  }

  #start(): void {
    this.#open = true;
    this.#res.writeHead(200, {
      ...this.#headers,
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
  }

  #frame(message: unknown): void {
    this.#res.write(`data: ${toJsonText(message)}\n\n`);
  }

  /** The last progress sent; 0 before any. */
  get reported(): number {
    return Math.max(0, this.#last);
  }

  progress(progress: number, total: number, message: string): void {
    if (!(progress > this.#last) || this.#res.destroyed) return;
    this.#last = progress;
    if (!this.#open) this.#start();
    this.#frame({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: this.#token, progress, total, message },
    });
  }

  /**
   * Ends the stream with the response; a refusal before any progress keeps its own HTTP status. A large
   * response's frame is encoded and written a piece at a time, a turn apart (http/piecewiseJson.ts).
   */
  async finish(status: number, body: JsonRpcResponse, headers: Record<string, string> = {}): Promise<void> {
    if (!this.#open && status !== 200) {
      sendJson(this.#res, status, body, { ...this.#headers, ...headers });
      return;
    }
    if (!this.#open) this.#start();
    const pieces = ['data: ', ...toJsonPieces(body), '\n\n'];
    if (fitsOnePiece(pieces)) this.#res.write(pieces.join(''));
    else if (!(await writePieces(this.#res, await encodePieces(pieces, () => this.#res.destroyed)))) return;
    this.#res.end();
  }
}
