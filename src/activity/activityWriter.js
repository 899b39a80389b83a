// The activity log's writer: a worker thread that chains and inserts the rows the log hands it, so that
// the thread answering requests never waits on SQLite. Plain JavaScript (see rowHash.js).
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { GENESIS, HASHED_COLUMNS, rowHash } from './rowHash.js';

/** `progress`: [the last batch written, 1 once the connection is closed]. */
/** @type {{ path: string, progress: Int32Array, failures: import('node:worker_threads').MessagePort }} */
const { path, progress, failures } = workerData;

const db = new Database(path);
// WAL's own recommendation: a commit survives the process dying at once; only a power cut can lose the
// last commits, and then whole ones, so the chain stays unbroken.
db.pragma('synchronous = NORMAL');
const lastSeq = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'activity'").pluck();
const tip = db.prepare('SELECT hash FROM activity ORDER BY seq DESC LIMIT 1').pluck();
const anchor = db.prepare('SELECT prev_hash FROM activity_anchor WHERE id = 1').pluck();
const insert = db.prepare(
  `INSERT INTO activity (${HASHED_COLUMNS.map((c) => `"${c}"`).join(', ')}, hash)
   VALUES (${HASHED_COLUMNS.map(() => '?').join(', ')}, ?)`,
);

// Immediate: the write lock is taken before the tip is read, so two processes cannot fork the chain.
const write = db.transaction((/** @type {Record<string, unknown>[]} */ rows) => {
  let seq = Number(lastSeq.get() ?? 0);
  let prevHash = String(tip.get() ?? anchor.get() ?? GENESIS);
  for (const fields of rows) {
    const row = /** @type {Parameters<typeof rowHash>[0]} */ ({ ...fields, seq: ++seq, prev_hash: prevHash });
    prevHash = rowHash(row);
    insert.run(...HASHED_COLUMNS.map((column) => row[column]), prevHash);
  }
}).immediate;

/** @param {number} slot @param {number} value */
function signal(slot, value) {
  Atomics.store(progress, slot, value);
  Atomics.notify(progress, slot);
}

parentPort?.on('message', (/** @type {{ batch: number, rows: Record<string, unknown>[] } | 'close'} */ message) => {
  if (message === 'close') {
    db.close();
    parentPort?.close();
    signal(1, 1);
    return;
  }
  try {
    write(message.rows);
  } catch (error) {
    failures.postMessage(error instanceof Error ? error.message : String(error));
  }
  signal(0, message.batch);
});
