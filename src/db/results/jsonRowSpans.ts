import { RESULTS } from '../../core/contract.js';
import { nextTurn } from '../../core/nextTurn.js';
import { type JsonRows, rowPieces } from '../database.js';

/** Where each row of a piece of whole JSON rows (`[…],[…]`, no outer brackets) starts and ends, found by scanning, not parsing, it. */
function* rowSpans(piece: string): Generator<[start: number, end: number]> {
  let depth = 0;
  let start = 0;
  for (let i = 0; i < piece.length; i++) {
    const c = piece.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; piece.charCodeAt(i) !== 0x22; i++) if (piece.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b /* [ */) {
      if (++depth === 1) start = i;
    } else if (c === 0x5d /* ] */ && --depth === 0) yield [start, i + 1];
  }
}

/** The JSON text of the first `count` rows. */
export function jsonRowsPrefix(rows: JsonRows, count: number): string {
  const kept: string[] = [];
  let left = count;
  for (const piece of rowPieces(rows)) {
    if (left === 0) break;
    let end = 0;
    for (const span of rowSpans(piece)) {
      end = span[1];
      if (--left === 0) break;
    }
    kept.push(piece.slice(0, end));
  }
  return `[${kept.join(',')}]`;
}

/**
 * The rows from row `from` on, parsed one at a time with a turn of the event loop after about
 * `RESULTS.answerBatchChars` of text: parsed whole, the rest of a 16 MiB answer held the loop for its length.
 */
export async function jsonRowsFrom(rows: JsonRows, from: number): Promise<unknown[][]> {
  const values: unknown[][] = [];
  let index = 0;
  let scanned = 0;
  for (const piece of rowPieces(rows)) {
    let since = 0;
    for (const [start, end] of rowSpans(piece)) {
      if (index++ >= from) values.push(JSON.parse(piece.slice(start, end)) as unknown[]);
      if (scanned + end - since >= RESULTS.answerBatchChars) {
        scanned = 0;
        since = end;
        await nextTurn();
      }
    }
    scanned += piece.length - since;
  }
  return values;
}
