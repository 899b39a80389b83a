// The activity log's hash chain, shared by the log (which verifies it) and its writer thread (which
// extends it). Plain JavaScript, so that the writer thread runs the same file from `src/` and `dist/`.
import { hash } from 'node:crypto';

/** The key order of the canonical JSON each row's hash covers: every column but `hash`. */
export const HASHED_COLUMNS = /** @type {const} */ ([
  'seq',
  'time',
  'category',
  'action',
  'outcome',
  'token_id',
  'token_name',
  'client_name',
  'connection_id',
  'statement_sha256',
  'duration_ms',
  'rows',
  'error',
  'traceparent',
  'tracestate',
  'baggage',
  'detail',
  'prev_hash',
]);

/** The `prev_hash` of the first row of a log never pruned. */
export const GENESIS = '0'.repeat(64);

/** @param {string} text */
export function sha256(text) {
  return hash('sha256', text, 'hex');
}

/**
 * SHA-256 of the row's canonical JSON, as `JSON.stringify(row, HASHED_COLUMNS)` writes it (built by
 * hand: the replacer form is several times slower).
 * @param {Record<(typeof HASHED_COLUMNS)[number], unknown>} row
 */
export function rowHash(row) {
  let text = '{';
  for (let i = 0; i < HASHED_COLUMNS.length; i++) {
    const column = /** @type {(typeof HASHED_COLUMNS)[number]} */ (HASHED_COLUMNS[i]);
    text += `${i === 0 ? '' : ','}"${column}":${JSON.stringify(row[column]) ?? 'null'}`;
  }
  return sha256(`${text}}`);
}
