import { nextTurn } from '../../src/core/nextTurn.js';

/**
 * The longest `work` held the event loop, in ms: a chain of `setImmediate` callbacks, one a turn, notes
 * the process's CPU time between two turns. CPU time, not the wall clock: on a machine busy with other
 * processes a turn can wait for a core without anything holding the loop. (`monitorEventLoopDelay`
 * measures the wall clock, and misses a hold that comes before its timer's first tick.)
 */
export async function worstLoopDelay(work: () => Promise<unknown>): Promise<number> {
  let since = process.cpuUsage();
  let worst = 0;
  let measuring = true;
  const turn = () => {
    const { user, system } = process.cpuUsage(since);
    since = process.cpuUsage();
    worst = Math.max(worst, (user + system) / 1_000);
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
