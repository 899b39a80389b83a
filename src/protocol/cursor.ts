import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { invalidParams } from '../core/errors.js';
import { PAGES } from '../core/contract.js';

export type Page<T> = { items: T[]; nextCursor?: string };

/**
 * Opaque pagination cursors: the offset, bound to the method that issued it and signed with a key made
 * at start, so a cursor cannot be forged, edited or replayed against another list method.
 */
export class CursorCodec {
  readonly #key: Buffer;

  constructor(key: Buffer = randomBytes(32)) {
    this.#key = key;
  }

  #sign(body: string): Buffer {
    return createHmac('sha256', this.#key).update(body).digest().subarray(0, 16);
  }

  encode(method: string, offset: number): string {
    const body = `${method}\n${offset}`;
    return Buffer.concat([this.#sign(body), Buffer.from(body)]).toString('base64url');
  }

  decode(method: string, cursor: unknown): number {
    if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > 512) {
      throw invalidParams('Invalid cursor');
    }
    const raw = Buffer.from(cursor, 'base64url');
    const mac = raw.subarray(0, 16);
    const body = raw.subarray(16).toString();
    const expected = this.#sign(body);
    if (mac.length !== 16 || !timingSafeEqual(mac, expected)) throw invalidParams('Invalid cursor');
    const [boundMethod, offsetText] = body.split('\n');
    if (boundMethod !== method)
      throw invalidParams(`Invalid cursor: it was issued by ${boundMethod}, not ${method}`);
    return Number(offsetText);
  }

  page<T>(method: string, items: readonly T[], cursor: unknown): Page<T> {
    const offset = cursor === undefined ? 0 : this.decode(method, cursor);
    const slice = items.slice(offset, offset + PAGES.pageSize);
    const end = offset + slice.length;
    return end < items.length ? { items: slice, nextCursor: this.encode(method, end) } : { items: slice };
  }
}
