// What the activity log and its writer thread share (see activityLog.ts and activityWriter.js): the
// messages the log posts, and the progress slots the writer sets, by name. Plain JavaScript, as the
// writer thread loads it as it stands (see activityChain.js).

/**
 * The writer's progress: one Int32 slot each, set by the writer with `Atomics.store` and woken with
 * `Atomics.notify`, read by the log with `Atomics.load` and `Atomics.wait`.
 */
export const PROGRESS = Object.freeze({
  /** The number of the last batch the writer handled (written, or its failure reported). */
  handled: 0,
  /** 1 once the writer closed its connection. */
  closed: 1,
  /** 1 once the writer gave up (it could not open the log). */
  gaveUp: 2,
});

/** @typedef {typeof PROGRESS[keyof typeof PROGRESS]} ProgressSlot */

/** A fresh progress array, every slot 0, shared with the writer through `workerData`. */
export const newProgress = () => new Int32Array(new SharedArrayBuffer(Object.keys(PROGRESS).length * Int32Array.BYTES_PER_ELEMENT));

/** The message that tells the writer to close its connection and end. */
export const CLOSE = 'close';

/**
 * What the log posts to the writer: a batch of rows to chain and insert, numbered from 1, or `CLOSE`.
 * @typedef {{ batch: number, rows: Record<string, unknown>[] } | typeof CLOSE} WriterMessage
 */

/**
 * What the writer gets as `workerData`: the log's path, the progress array, and the port it reports
 * failures on.
 * @typedef {{ path: string, progress: Int32Array, failures: import('node:worker_threads').MessagePort }} WriterData
 */
