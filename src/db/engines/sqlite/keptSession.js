// SQLite's side of a kept write and its undo (db/keepSteps.js, restoreSteps.js), in the query process:
// values read and bound exactly as SQLite stores them. Plain JavaScript, as the process loads it.
import { exactBytes } from '../../keepSteps.js';

/** @typedef {import('../../keptWrites.js').ExactValue} ExactValue */

/**
 * A stored value in exact form: an INTEGER as `{ i }` (read with safeIntegers, so past 2^53 too), a REAL
 * as `{ f }` (the shortest text that reads back as the same double; -0 and Infinity included), a BLOB in
 * base64, TEXT as it is.
 * @param {unknown} value
 * @returns {ExactValue}
 */
export function exactValue(value) {
  if (value === null || typeof value === 'string') return value;
  if (typeof value === 'bigint') return { i: value.toString() };
  if (typeof value === 'number') return { f: Object.is(value, -0) ? '-0' : String(value) };
  if (value instanceof Uint8Array) return { b: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  throw new TypeError(`SQLite gave a value of type ${typeof value}`);
}

/**
 * An exact value bound as SQLite stored it: `{ i }` as a 64-bit integer, `{ f }` as a double, `{ b }` as
 * a blob, text as text.
 * @param {ExactValue} value
 * @returns {unknown}
 */
export function boundValue(value) {
  if (value === null || typeof value === 'string') return value;
  if ('i' in value && typeof value.i === 'string') return BigInt(value.i);
  if ('f' in value && typeof value.f === 'string') return Number(value.f);
  if ('b' in value && typeof value.b === 'string') return Buffer.from(value.b, 'base64');
  throw new TypeError('not an exact value');
}

/**
 * The statement's rows in exact form, those that fit `keep` (past it, none: `over`), and the rows it
 * changed. A read stops at the first row past `keep`; with `toEnd` (a write returning rows) every row is
 * stepped through, so that the statement is done whole.
 * @param {import('better-sqlite3').Database} db
 * @param {string} sql
 * @param {unknown[]} params
 * @param {import('../../keepSteps.js').Keep} keep
 */
function exactRows(db, sql, params, keep) {
  const stmt = db.prepare(sql);
  if (!stmt.reader) return { rows: [], rowsAffected: stmt.run(...params).changes, over: false };
  const changes = db.prepare('SELECT total_changes()').pluck();
  const start = Number(changes.get());
  stmt.safeIntegers(true);
  /** @type {ExactValue[][]} */
  let rows = [];
  let bytes = 0;
  let over = false;
  for (const raw of stmt.raw(true).iterate(...params)) {
    if (over) continue;
    const row = /** @type {unknown[]} */ (raw).map(exactValue);
    bytes += exactBytes(row);
    over = rows.length === keep.rows || bytes > keep.bytes;
    if (!over) rows.push(row);
    else if (keep.toEnd) rows = [];
    else break;
  }
  return { rows: over ? [] : rows, rowsAffected: stmt.readonly ? 0 : Number(changes.get()) - start, over };
}

/**
 * The session the shared steps run through, on `db` inside the transaction the caller holds; `write` runs
 * the approved statement as a consented write is run.
 * @param {import('better-sqlite3').Database} db
 * @param {(sql: string, params: unknown[]) => unknown} write
 * @returns {import('../../keepSteps.js').KeptSession}
 */
export function keptSession(db, write) {
  return {
    exact: async (sql, params, keep) => exactRows(db, sql, params, keep),
    write: async (sql, params) => write(sql, params),
    bind: boundValue,
  };
}
