// The byte budget of one result, shared by the SQLite query process (plain JavaScript, so the same file
// serves it) and the server drivers. Sizes are the length of the JSON text a client receives for the
// rows (one copy; a tool result carries the rows twice, as text and as structuredContent).
import { RESULTS } from '../../core/contract.js';

/** Catalog reads (tables, columns, DDL): the cap, and no cell is cut, since a cut name or DDL is wrong. */
export const CATALOG_BUDGET = Object.freeze({ maxRows: RESULTS.catalogRows, maxBytes: RESULTS.capBytes, cellBytes: RESULTS.capBytes });

// Characters JSON.stringify escapes: only strings holding them need the exact (slower) count.
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;

/**
 * The length of `value`'s JSON text.
 * @param {unknown} value
 * @returns {number}
 */
export function jsonLength(value) {
  if (typeof value === 'string') return NEEDS_ESCAPE.test(value) ? JSON.stringify(value).length : value.length + 2;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? integerLength(value) : String(value).length;
  if (value === null || value === undefined) return 4;
  if (typeof value === 'object') return JSON.stringify(value).length;
  return String(value).length;
}

/**
 * Digits (and sign) of a safe integer, without making its text: most cells are small integers.
 * @param {number} value
 */
function integerLength(value) {
  let length = value < 0 ? 2 : 1;
  for (let rest = Math.abs(value); rest >= 10; rest = Math.floor(rest / 10)) length += 1;
  return length;
}

/**
 * `value` cut so that its JSON text stays within `limit` characters, ending in a marker that says how
 * long it was. Objects and arrays (JSON columns) are cut as their JSON text.
 * @param {unknown} value
 * @param {number} limit
 * @returns {unknown}
 */
export function cutValue(value, limit) {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const marker = `…[cut: ${text.length} characters in all]`;
  // An escaped character takes at most 6 in JSON: this many raw ones always fit with the marker.
  let keep = Math.max(0, Math.floor((limit - 2 - marker.length) / 6));
  // Widen while it fits (plain text is mostly 1:1), at most a few times.
  for (let step = 0; step < 4; step++) {
    const wider = Math.max(keep, limit - 2 - marker.length - (jsonLength(text.slice(0, keep)) - 2 - keep));
    if (wider <= keep || jsonLength(text.slice(0, wider) + marker) > limit) break;
    keep = wider;
  }
  // Never split a surrogate pair.
  const code = text.charCodeAt(keep - 1);
  if (code >= 0xd800 && code <= 0xdbff) keep -= 1;
  return text.slice(0, keep) + marker;
}

/**
 * A binary value as `0x…` hex, cut (and marked with its size in bytes) before it is turned into text
 * when its hex would pass `limit` characters (`cut`: 2 × bytes + 4 > limit), so that a huge blob is
 * never copied whole into a string.
 * @param {Uint8Array} bytes
 * @param {number} limit
 * @returns {{ text: string, cut: boolean }}
 */
export function blobHex(bytes, limit) {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (2 * bytes.length + 4 <= limit) return { text: `0x${buffer.toString('hex')}`, cut: false };
  const marker = `…[cut: ${bytes.length} bytes in all]`;
  const keep = Math.max(0, Math.floor((limit - 4 - marker.length) / 2));
  return { text: `0x${buffer.subarray(0, keep).toString('hex')}${marker}`, cut: true };
}

/**
 * Rows taken one at a time against a byte budget. Cells longer than the cell limit are cut (counted in
 * `cellsCut`); a row that would take the result past `maxBytes` is refused and ends the result, except
 * the first, whose cells are cut further so that it fits: a result is never empty because of its size.
 */
export class RowBudget {
  /**
   * @param {number} maxBytes
   * @param {number} [cellBytes] the most one cell may take (catalog reads pass `maxBytes`: names and DDL are never cut)
   */
  constructor(maxBytes, cellBytes = RESULTS.cellBytes) {
    this.maxBytes = maxBytes;
    this.cellLimit = Math.min(cellBytes, maxBytes);
    /** JSON characters taken so far: `[` and `]` of the rows array. */
    this.used = 2;
    this.rows = 0;
    this.cellsCut = 0;
  }

  /**
   * Cuts `row`'s over-long cells in place and takes it; false when it does not fit (leave it out and stop).
   * @param {unknown[]} row
   * @returns {boolean}
   */
  take(row) {
    const first = this.rows === 0;
    let size = (first ? 0 : 1) + 2 + Math.max(0, row.length - 1);
    let cut = 0;
    for (let i = 0; i < row.length; i++) {
      const room = first ? Math.max(64, Math.min(this.cellLimit, this.maxBytes - this.used - size)) : this.cellLimit;
      let length = jsonLength(row[i]);
      if (length > room) {
        row[i] = cutValue(row[i], room);
        length = jsonLength(row[i]);
        cut += 1;
      }
      size += length;
    }
    if (!first && this.used + size > this.maxBytes) return false;
    this.used += size;
    this.rows += 1;
    this.cellsCut += cut;
    return true;
  }
}
