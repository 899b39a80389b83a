// The byte budget of one result, shared by the SQLite query process (plain JavaScript, so the same file
// serves it) and the server drivers. Sizes are UTF-8 bytes of the JSON text a client receives. A budget
// for an answer (`answer`: the rows also go out as the result's text, rowsAs 'json') counts all of it:
// the columns' names and types, the header line, and each row twice, as JSON and as its line of text.
import { Buffer } from 'node:buffer';
import { RESULTS } from '../../core/contract.js';
import { needsQuotes, valueText } from './valueText.js';
import { JsonText } from './jsonText.js';

/** Catalog reads (tables, columns, DDL): the cap, and no cell is cut, since a cut name or DDL is wrong. */
export const CATALOG_BUDGET = Object.freeze({ maxRows: RESULTS.catalogRows, maxBytes: RESULTS.capBytes, cellBytes: RESULTS.capBytes });

// Printable ASCII but the quote and the backslash: a string of only these is its own JSON, one byte each.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
// Characters JSON.stringify escapes (and lone surrogates, which it escapes too): a string without them
// is its own JSON, its UTF-8 bytes.
// eslint-disable-next-line no-control-regex
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * The UTF-8 length of `value`'s JSON text.
 * @param {unknown} value
 * @returns {number}
 */
export function jsonLength(value) {
  if (typeof value === 'string') {
    if (PLAIN.test(value)) return value.length + 2;
    return ESCAPED.test(value) ? Buffer.byteLength(JSON.stringify(value)) : Buffer.byteLength(value) + 2;
  }
  if (typeof value === 'number') return Number.isSafeInteger(value) ? integerLength(value) : Number.isFinite(value) ? String(value).length : 4;
  if (value === null || value === undefined) return 4;
  if (typeof value === 'object') return Buffer.byteLength(JSON.stringify(value));
  return String(value).length;
}

/**
 * The UTF-8 length of `value` in the answer's text (db/results/valueText.js) once that text is a JSON string.
 * A number, boolean or null reads as its JSON (null and NaN as `NULL`, four bytes as `null`); a string
 * that needs no quotes escapes as its JSON does.
 * @param {unknown} value
 * @param {number} [json] its `jsonLength`, when known
 * @returns {number}
 */
export function textLength(value, json = jsonLength(value)) {
  if (typeof value === 'string') {
    if (!needsQuotes(value)) return json - 2;
    return PLAIN.test(value) ? value.length + 4 : Buffer.byteLength(JSON.stringify(JSON.stringify(value))) - 2;
  }
  if (typeof value === 'object' && value !== null) return Buffer.byteLength(JSON.stringify(valueText(value))) - 2;
  return json;
}

/**
 * `textLength` of a string of PLAIN characters: itself, or (empty, `NULL`, edge spaces) quoted, `\\"…\\"` once escaped.
 * @param {string} text
 */
function plainTextLength(text) {
  const length = text.length;
  const bare = length > 0 && text !== 'NULL' && text.charCodeAt(0) !== 0x20 && text.charCodeAt(length - 1) !== 0x20;
  return bare ? length : length + 4;
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
 * `value` cut so that its JSON text stays within `limit` bytes, ending in a marker that says how long it
 * was. Objects and arrays (JSON columns) are cut as their JSON text.
 * @param {unknown} value
 * @param {number} limit
 * @returns {unknown}
 */
export function cutValue(value, limit) {
  const text = typeof value === 'string' ? value : value instanceof JsonText ? value.text : JSON.stringify(value);
  const marker = `…[cut: ${text.length} characters in all]`;
  const markerBytes = jsonLength(marker) - 2;
  // An escaped character takes at most 6 bytes in JSON: this many raw ones always fit with the marker.
  let keep = Math.max(0, Math.floor((limit - 2 - markerBytes) / 6));
  // Widen while it fits (plain text is mostly 1:1), at most a few times.
  for (let step = 0; step < 4; step++) {
    const wider = Math.max(keep, limit - 2 - markerBytes - (jsonLength(text.slice(0, keep)) - 2 - keep));
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
 * when its hex would pass `limit` bytes (`cut`: 2 × bytes + 4 > limit), so that a huge blob is never
 * copied whole into a string.
 * @param {Uint8Array} bytes
 * @param {number} limit
 * @returns {{ text: string, cut: boolean }}
 */
export function blobHex(bytes, limit) {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (2 * bytes.length + 4 <= limit) return { text: `0x${buffer.toString('hex')}`, cut: false };
  const marker = `…[cut: ${bytes.length} bytes in all]`;
  const keep = Math.max(0, Math.floor((limit - 4 - Buffer.byteLength(marker)) / 2));
  return { text: `0x${buffer.subarray(0, keep).toString('hex')}${marker}`, cut: true };
}

/** The least a value of an answer's first row is cut to, in JSON bytes: room for the marker and a little text. */
const FIRST_ROW_CELL = 64;
/** What one such value may take in an answer, JSON and text (at most twice its JSON) with their separators. */
const FIRST_ROW_CELL_COST = 3 * FIRST_ROW_CELL + 3;
/** `{"name":,"type":}` and the comma between two columns, and the tab between two names, escaped. */
const COLUMN_FRAME = 18 + 2;

/**
 * Columns and rows taken against a byte budget. Cells longer than the cell limit are cut (counted in
 * `cellsCut`); a row that would take the result past `maxBytes` is refused and ends the result, except
 * the first, whose cells are cut further so that it fits: a result is never empty because of its size.
 * A JSON value returned as its text (JsonText) is counted in `valuesAsText`.
 *
 * An answer's budget (`answer`) also counts the columns and the rows' text. Columns are taken in order
 * while they fit, each keeping room for a cut value in the first row: those that do not are left out
 * with their values (`columnsLeftOut`), and a name or type too long for what is left is cut.
 */
export class RowBudget {
  /**
   * @param {number} maxBytes
   * @param {{ cellBytes?: number, answer?: boolean }} [options] `cellBytes`: the most one cell may take
   *   (catalog reads pass `maxBytes`: names and DDL are never cut); `answer`: the rows are also the answer's text
   */
  constructor(maxBytes, { cellBytes = RESULTS.cellBytes, answer = false } = {}) {
    this.maxBytes = maxBytes;
    this.cellLimit = Math.min(cellBytes, maxBytes);
    this.answer = answer;
    /** Bytes taken so far: `[` and `]` of the rows array. */
    this.used = 2;
    this.rows = 0;
    this.cellsCut = 0;
    this.valuesAsText = 0;
    this.columnsLeftOut = 0;
    this.columnsCut = 0;
    /** How many of each row's values are kept (all until `takeColumns` says otherwise). */
    this.width = Infinity;
  }

  /**
   * The columns an answer keeps, their names and types cut where they must be; all of them for other
   * reads. Read one at a time, so that a driver can name only the columns kept.
   * @template {{ name: string, type: string }} C
   * @param {Iterable<C>} columns
   * @param {number} count how many there are
   * @returns {C[]}
   */
  takeColumns(columns, count) {
    if (!this.answer) return [...columns];
    /** @type {C[]} */
    const kept = [];
    let reserved = 0;
    for (const column of columns) {
      const room = this.maxBytes - this.used - reserved - FIRST_ROW_CELL_COST - COLUMN_FRAME;
      let { name, type } = column;
      if (columnBytes(name, type) > room) {
        // Cut the type to a little, then the name to what is left; stop when not even that fits.
        if (jsonLength(type) > FIRST_ROW_CELL) type = /** @type {string} */ (cutValue(type, FIRST_ROW_CELL));
        const nameRoom = Math.floor((room - 3 * jsonLength(type)) / 3);
        if (nameRoom < FIRST_ROW_CELL) break;
        if (columnBytes(name, type) > room) name = /** @type {string} */ (cutValue(name, nameRoom));
        this.columnsCut += 1;
      }
      reserved += FIRST_ROW_CELL_COST;
      this.used += columnBytes(name, type) + COLUMN_FRAME;
      kept.push(name === column.name && type === column.type ? column : { ...column, name, type });
    }
    this.columnsLeftOut = count - kept.length;
    this.width = kept.length;
    return kept;
  }

  /**
   * Cuts `row`'s over-long cells in place and takes it; false when it does not fit (leave it out and stop).
   * @param {unknown[]} row
   * @returns {boolean}
   */
  take(row) {
    if (row.length > this.width) row.length = this.width;
    const first = this.rows === 0;
    // `[`, `]`, the commas and the comma before it; its line: the line break and the tabs, escaped.
    let size = (first ? 0 : 1) + 2 + Math.max(0, row.length - 1) + (this.answer ? 2 * row.length : 0);
    let cut = 0;
    for (let i = 0; i < row.length; i++) {
      let value = row[i];
      if (value instanceof JsonText) {
        value = row[i] = value.text;
        this.valuesAsText += 1;
      }
      // A string longer than any room is cut unmeasured: a huge one is never scanned whole.
      let length = typeof value === 'string' && value.length + 2 > this.maxBytes ? Infinity : this.#bytes(value);
      const room = first ? this.maxBytes - this.used - size - (row.length - 1 - i) * (this.answer ? FIRST_ROW_CELL_COST : FIRST_ROW_CELL) : Infinity;
      if (length > room || this.#json > this.cellLimit) {
        // Cut to the room by the share of it the JSON takes (the text is the rest), then surely (JSON at most a third).
        const share = !this.answer ? 1 : length === Infinity ? 0.5 : this.#json / length;
        const limit = (/** @type {number} */ fraction) => Math.max(FIRST_ROW_CELL, Math.min(this.cellLimit, Math.floor(room * fraction)));
        let shorter = cutValue(value, limit(share));
        if (this.#bytes(shorter) > room && this.answer) shorter = cutValue(value, limit(1 / 3));
        value = row[i] = shorter;
        length = this.#bytes(value);
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

  /** The JSON bytes of the value `#bytes` measured last. */
  #json = 0;

  /**
   * What `value` takes: its JSON, and in an answer also its text.
   * @param {unknown} value
   */
  #bytes(value) {
    if (typeof value === 'string' && PLAIN.test(value)) {
      this.#json = value.length + 2;
      if (!this.answer) return this.#json;
      return this.#json + plainTextLength(value);
    }
    this.#json = jsonLength(value);
    return this.answer ? this.#json + textLength(value, this.#json) : this.#json;
  }

  /**
   * What a driver's result says of its truncation.
   * @param {'max_rows' | 'max_bytes' | undefined} truncatedBy why rows were left out, if they were
   */
  outcome(truncatedBy) {
    const by = truncatedBy ?? (this.columnsLeftOut > 0 || this.columnsCut > 0 ? 'max_bytes' : undefined);
    return {
      truncated: by !== undefined,
      ...(by ? { truncatedBy: by } : {}),
      cellsCut: this.cellsCut,
      ...(this.columnsLeftOut > 0 ? { columnsLeftOut: this.columnsLeftOut } : {}),
      ...(this.valuesAsText > 0 ? { valuesAsText: this.valuesAsText } : {}),
    };
  }
}

/**
 * A column's bytes in an answer: its name and type in `columns`, its name in the header line.
 * @param {string} name
 * @param {string} type
 */
const columnBytes = (name, type) => jsonLength(name) + jsonLength(type) + textLength(name);
