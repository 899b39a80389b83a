import { readFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { nextTurn } from '../../src/core/nextTurn.js';

/** The main thread's own time on a core, in ms: Linux's schedstat of the thread whose id is the process's. */
const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;
function mainThreadMs(): number | undefined {
  if (!isMainThread) return undefined;
  try {
    return Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}
/** Where the thread's own time is not offered: the whole process's (DuckDB's and the GC's threads counted too). */
function processMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1_000;
}
const cpuMs: () => number = mainThreadMs() === undefined ? processMs : () => mainThreadMs() as number;

/**
 * The longest `work` held the event loop, in ms: a chain of `setImmediate` callbacks, one a turn, notes
 * the main thread's CPU time between two turns. CPU time, not the wall clock: on a machine busy with
 * other processes a turn can wait for a core without anything holding the loop. The main thread's, not
 * the process's: DuckDB's worker threads and the garbage collector's run beside the loop without
 * holding it. (`monitorEventLoopDelay` measures the wall clock, and misses a hold that comes before its
 * timer's first tick.)
 */
export async function worstLoopDelay(work: () => Promise<unknown>): Promise<number> {
  let since = cpuMs();
  let worst = 0;
  let measuring = true;
  const turn = () => {
    const now = cpuMs();
    worst = Math.max(worst, now - since);
    since = now;
    if (measuring) setImmediate(turn);
  };
  setImmediate(turn);
  try {
    await work();
    await nextTurn();
  } finally {
    measuring = false;
  }
  return worst;
}
