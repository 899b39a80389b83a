import { SimulatedClock } from 'xstate';

/**
 * A SimulatedClock whose `advance(ms)` stops at every timer due on the way, so that a timer started by
 * another timer (a code's tombstone starts when the code expires) runs from the moment it would have
 * started on a real clock. A bare `increment(12 min)` would start the tombstone at the end of the jump.
 */
export class SteppingClock extends SimulatedClock {
  readonly #due = new Map<number, number>();

  override setTimeout(fn: (...args: any[]) => void, timeout: number): number {
    const id: number = super.setTimeout(() => {
      this.#due.delete(id);
      fn();
    }, timeout);
    this.#due.set(id, this.now() + timeout);
    return id;
  }

  override clearTimeout(id: number): void {
    this.#due.delete(id);
    super.clearTimeout(id);
  }

  /** Moves time forward by `ms`, firing every timer at its own due time, in order. */
  advance(ms: number): void {
    const target = this.now() + ms;
    for (;;) {
      const next = Math.min(...[...this.#due.values()].filter((due) => due <= target));
      if (!Number.isFinite(next)) break;
      this.set(Math.max(next, this.now()));
    }
    this.set(target);
  }

  /** Timers still waiting: XState's delayed events of live actors, and the app's own periodic work. */
  pendingTimers(): number {
    return this.#due.size;
  }
}
