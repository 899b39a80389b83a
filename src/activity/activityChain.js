// The activity log's hash chain: how a row's hash is made (the log verifies with it) and how rows are
// chained and inserted (its writer thread writes with it, and so does the log itself if that thread is
// gone). Plain JavaScript, so that the writer thread runs the same file from `src/` and `dist/`.
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

/**
 * Writes rows (every column but `seq`, `prev_hash` and `hash`) in one immediate transaction, each
 * chained to the one before. Immediate: the write lock is taken before the tip is read, so two
 * connections, in this process or another, cannot fork the chain.
 * @param {import('better-sqlite3').Database} db
 * @returns {(rows: Record<string, unknown>[]) => void}
 */
export function chainWriter(db) {
  const lastSeq = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'activity'").pluck();
  const tip = db.prepare('SELECT hash FROM activity ORDER BY seq DESC LIMIT 1').pluck();
  const anchor = db.prepare('SELECT prev_hash FROM activity_anchor WHERE id = 1').pluck();
  const insert = db.prepare(
    `INSERT INTO activity (${HASHED_COLUMNS.map((c) => `"${c}"`).join(', ')}, hash)
     VALUES (${HASHED_COLUMNS.map(() => '?').join(', ')}, ?)`,
  );
  return db.transaction((/** @type {Record<string, unknown>[]} */ rows) => {
    let seq = Number(lastSeq.get() ?? 0);
    let prevHash = String(tip.get() ?? anchor.get() ?? GENESIS);
    for (const fields of rows) {
      const row = /** @type {Parameters<typeof rowHash>[0]} */ ({ ...fields, seq: ++seq, prev_hash: prevHash });
      prevHash = rowHash(row);
      insert.run(...HASHED_COLUMNS.map((column) => row[column]), prevHash);
    }
  }).immediate;
}
