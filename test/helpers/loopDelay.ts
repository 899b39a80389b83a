import { performance } from 'node:perf_hooks';
import { nextTurn } from '../../src/core/nextTurn.js';

/**
 * The longest the event loop went between two turns while `work` ran, in ms: a chain of `setImmediate`
 * callbacks, one a turn, notes each gap. (`monitorEventLoopDelay` misses a hold that comes before its
 * timer's first tick, as the hold of work that starts synchronously does.)
 */
export async function worstLoopDelay(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let worst = 0;
  let measuring = true;
  const turn = () => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
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
