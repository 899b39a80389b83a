// The activity log's writer: a worker thread that chains and inserts the rows the log hands it, so that
// the thread answering requests never waits on SQLite. Plain JavaScript (see activityChain.js).
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { chainWriter } from './activityChain.js';
import { CLOSE, PROGRESS } from './writerProgress.js';

/** @type {import('./writerProgress.js').WriterData} */
const { path, progress, failures } = workerData;

/** @param {import('./writerProgress.js').ProgressSlot} slot @param {number} value */
function signal(slot, value) {
  Atomics.store(progress, slot, value);
  Atomics.notify(progress, slot);
}

/** @param {unknown} error */
const messageOf = (error) => (error instanceof Error ? error.message : String(error));

/** Gives up at once: the log writes on its own thread from now on, and its next read reports why. */
function giveUp(/** @type {unknown} */ error) {
  failures.postMessage(`the writer thread could not open the log: ${messageOf(error)}`);
  signal(PROGRESS.gaveUp, 1);
  // Wake a read waiting for a batch or for the close: neither will come.
  Atomics.notify(progress, PROGRESS.handled);
  Atomics.notify(progress, PROGRESS.closed);
  parentPort?.close();
}

/**
 * @param {import('better-sqlite3').Database} db
 * @param {(rows: Record<string, unknown>[]) => void} write
 */
function serve(db, write) {
  parentPort?.on('message', (/** @type {import('./writerProgress.js').WriterMessage} */ message) => {
    if (message === CLOSE) {
      db.close();
      parentPort?.close();
      signal(PROGRESS.closed, 1);
      return;
    }
    try {
      write(message.rows);
    } catch (error) {
      failures.postMessage(messageOf(error));
    }
    signal(PROGRESS.handled, message.batch);
  });
}

/** @type {import('better-sqlite3').Database | undefined} */
let db;
try {
  db = new Database(path, { fileMustExist: true });
  // WAL's own recommendation: a commit survives the process dying at once; only a power cut can lose
  // the last commits, and then whole ones, so the chain stays unbroken.
  db.pragma('synchronous = NORMAL');
  serve(db, chainWriter(db));
} catch (error) {
  db?.close();
  giveUp(error);
}
