import { Socket } from 'node:net';
import { RESULTS } from '../../core/contract.js';

const HEADER_BYTES = 5;
const DATA_ROW = 0x44; // 'D'

/**
 * The socket of a PostgreSQL session, filtering rows before `pg` sees them. `pg` buffers each protocol
 * message whole, so one `SELECT repeat('x', 100000000)` would put hundreds of megabytes into this
 * process before any budget could look at it. While armed with an allowance, the guard passes DataRow
 * messages until their bytes would pass it, and drops the rest as they stream by — never held, never
 * parsed — counting them in `dropped`; a row over 32 MB is always dropped. Dropping whole messages keeps
 * the protocol intact: `pg` only sees fewer rows.
 */
export class GuardedSocket extends Socket {
  readonly #header = Buffer.alloc(HEADER_BYTES);
  #headerFilled = 0;
  /** Bytes of the current message still to pass on, or to drop. */
  #pass = 0;
  #skip = 0;
  #allowance = Number.POSITIVE_INFINITY;
  #firstRowFree = false;
  dropped = 0;

  /**
   * Until `disarm`, DataRows may take `bytes` in all; with `firstRowFree`, the first row passes whatever
   * its size (up to the row limit), so a result is never empty only because of one wide row.
   */
  arm(bytes: number, firstRowFree: boolean): void {
    this.#allowance = bytes;
    this.#firstRowFree = firstRowFree;
    this.dropped = 0;
  }

  disarm(): void {
    this.#allowance = Number.POSITIVE_INFINITY;
    this.#firstRowFree = false;
  }

  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event !== 'data') return super.emit(event, ...args);
    const kept = this.#filter(args[0] as Buffer);
    return kept.length === 0 || super.emit('data', kept);
  }

  #filter(chunk: Buffer): Buffer {
    const kept: Buffer[] = [];
    let at = 0;
    while (at < chunk.length) {
      if (this.#pass > 0 || this.#skip > 0) {
        const n = Math.min(this.#pass || this.#skip, chunk.length - at);
        if (this.#pass > 0) {
          kept.push(chunk.subarray(at, at + n));
          this.#pass -= n;
        } else this.#skip -= n;
        at += n;
        continue;
      }
      const n = Math.min(HEADER_BYTES - this.#headerFilled, chunk.length - at);
      chunk.copy(this.#header, this.#headerFilled, at, at + n);
      this.#headerFilled += n;
      at += n;
      if (this.#headerFilled < HEADER_BYTES) break;
      this.#headerFilled = 0;
      const length = this.#header.readInt32BE(1);
      if (this.#header[0] === DATA_ROW && !this.#admits(length)) {
        this.dropped += 1;
        this.#skip = length - 4;
      } else {
        kept.push(Buffer.from(this.#header));
        this.#pass = length - 4;
      }
    }
    return kept.length === 1 ? (kept[0] as Buffer) : Buffer.concat(kept);
  }

  #admits(length: number): boolean {
    if (length > RESULTS.maxPostgresRowBytes) return false;
    const free = this.#firstRowFree;
    this.#firstRowFree = false;
    if (!free && (this.dropped > 0 || length > this.#allowance)) return false;
    this.#allowance -= length;
    return true;
  }
}
