import { APPLICATION } from '../core/contract.js';
import type { AppClock } from '../core/clock.js';

/**
 * "Something the console shows may have changed", said by whoever changed it. A burst (one request is
 * several actor steps) reaches listeners once, after it settles.
 */
export class ChangeSignal {
  readonly #listeners = new Set<(reason: string) => void>();
  readonly #clock: AppClock;
  #pending: unknown;
  #reason = '';

  constructor(clock: AppClock) {
    this.#clock = clock;
  }

  notify(reason: string): void {
    this.#reason = reason;
    if (this.#pending !== undefined || this.#listeners.size === 0) return;
    this.#pending = this.#clock.setTimeout(() => {
      this.#pending = undefined;
      for (const listener of this.#listeners) listener(this.#reason);
    }, APPLICATION.changeSettleMs);
  }

  subscribe(listener: (reason: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
