import { invalidParams } from '../core/errors.js';
import { PAGES } from '../core/contract.js';
import { TextSeal } from './textSeal.js';

export type Page<T> = { items: T[]; nextCursor?: string };

/**
 * Opaque pagination cursors: the offset, bound to the method that issued it and signed with a key made
 * at start, so a cursor cannot be forged, edited or replayed against another list method.
 */
export class CursorCodec {
  readonly #seal: TextSeal;

  constructor(key?: Buffer) {
    this.#seal = new TextSeal(key);
  }

  encode(method: string, offset: number): string {
    return this.#seal.seal(`${method}\n${offset}`);
  }

  decode(method: string, cursor: unknown): number {
    if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > 512) {
      throw invalidParams('Invalid cursor');
    }
    const body = this.#seal.open(cursor);
    if (body === undefined) throw invalidParams('Invalid cursor');
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
