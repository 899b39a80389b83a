import { Socket } from 'node:net';
import { RESULTS } from '../../../core/contract.js';

const HEADER_BYTES = 5;
const DATA_ROW = 0x44; // 'D'

/**
 * The filter on a PostgreSQL session's socket, dropping rows before `pg` sees them. `pg` buffers each protocol
 * message whole, so one `SELECT repeat('x', 100000000)` would put hundreds of megabytes into this
 * process before any budget could look at it. While armed with an allowance, the guard passes DataRow
 * messages until their bytes or their number would pass it, and drops the rest as they stream by — never
 * held, never parsed — counting them in `dropped`; a row over 32 MB is always dropped. Dropping whole messages keeps
 * the protocol intact: `pg` only sees fewer rows.
 */
export class RowGuard {
  readonly #header = Buffer.alloc(HEADER_BYTES);
  #headerFilled = 0;
  /** Bytes of the current message still to pass on, or to drop. */
  #pass = 0;
  #skip = 0;
  #allowance = Number.POSITIVE_INFINITY;
  #rowsLeft = Number.POSITIVE_INFINITY;
  #firstRowFree = false;
  dropped = 0;

  /**
   * Until `disarm`, DataRows may take `bytes` in all and be `rows` at most; with `firstRowFree`, the first
   * row passes whatever its size (up to the row limit), so a result is never empty only because of one wide row.
   */
  arm(bytes: number, firstRowFree: boolean, rows = Number.POSITIVE_INFINITY): void {
    this.#allowance = bytes;
    this.#rowsLeft = rows;
    this.#firstRowFree = firstRowFree;
    this.dropped = 0;
  }

  disarm(): void {
    this.#allowance = Number.POSITIVE_INFINITY;
    this.#rowsLeft = Number.POSITIVE_INFINITY;
    this.#firstRowFree = false;
  }

  /** What of `chunk` the driver may see. */
  filter(chunk: Buffer): Buffer {
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
    if (length > RESULTS.maxPostgresRowBytes || this.#rowsLeft <= 0) return false;
    const free = this.#firstRowFree;
    this.#firstRowFree = false;
    if (!free && (this.dropped > 0 || length > this.#allowance)) return false;
    this.#allowance -= length;
    this.#rowsLeft -= 1;
    return true;
  }
}

/** What a statement arms and reads: a RowGuard, or the GuardedSocket holding one. */
export type Guard = Pick<RowGuard, 'arm' | 'disarm' | 'dropped'>;

/** The socket `pg` opens for a session, guarded from its first byte. */
export class GuardedSocket extends Socket implements Guard {
  readonly #guard = new RowGuard();

  arm(bytes: number, firstRowFree: boolean, rows?: number): void {
    this.#guard.arm(bytes, firstRowFree, rows);
  }

  disarm(): void {
    this.#guard.disarm();
  }

  get dropped(): number {
    return this.#guard.dropped;
  }

  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event !== 'data') return super.emit(event, ...args);
    const kept = this.#guard.filter(args[0] as Buffer);
    return kept.length === 0 || super.emit('data', kept);
  }
}

/**
 * Guards a socket `pg` made itself: the TLS socket of an encrypted session, which reads the
 * GuardedSocket's bytes below JavaScript, so only its own decrypted data can be filtered. Call it before
 * the session's first statement, while no message is half read.
 */
export function guardInPlace(socket: Socket): RowGuard {
  const guard = new RowGuard();
  const emit = socket.emit.bind(socket);
  socket.emit = (event: string | symbol, ...args: unknown[]): boolean => {
    if (event !== 'data') return emit(event, ...args);
    const kept = guard.filter(args[0] as Buffer);
    return kept.length === 0 || emit('data', kept);
  };
  return guard;
}
