import { RateLimiterMemory } from 'rate-limiter-flexible';

export type LockoutPolicy = { failures: number; windowSeconds: number; lockoutSeconds: number };

/** A key with failures counted: locked out, or still counting; `msLeft` until it is free again or its count resets. */
export type LockoutState = { key: string; failures: number; locked: boolean; msLeft: number };

/**
 * Counts failures per key (an address); the `failures`-th failure within the window locks the key out
 * for `lockoutSeconds`. A success clears the count.
 */
export class FailureLockout {
  readonly #limiter: RateLimiterMemory;
  readonly #allowed: number;
  /**
   * Keys with a failure counted since their last success: every other key is answered without asking
   * the limiter. Only a success removes one (a removal after an await could lose a failure counted
   * meanwhile).
   */
  readonly #failing = new Set<string>();

  constructor(policy: LockoutPolicy) {
    // The limiter blocks once its points are exceeded, so the last allowed failure is the one before.
    this.#allowed = policy.failures - 1;
    this.#limiter = new RateLimiterMemory({
      points: this.#allowed,
      duration: policy.windowSeconds,
      blockDuration: policy.lockoutSeconds,
    });
  }

  /** Seconds until `key` may try again, or 0 when it is not locked out. */
  async retryAfter(key: string): Promise<number> {
    if (!this.#failing.has(key)) return 0;
    const state = await this.#limiter.get(key);
    // An expired record lingers until the limiter's own timer removes it.
    if (!state || state.consumedPoints <= this.#allowed || state.msBeforeNext <= 0) return 0;
    return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  }

  /** Every key with failures still counted, locked or not. */
  async states(): Promise<LockoutState[]> {
    const states: LockoutState[] = [];
    for (const key of this.#failing) {
      const state = await this.#limiter.get(key);
      if (!state || state.msBeforeNext <= 0) continue;
      const locked = state.consumedPoints > this.#allowed;
      states.push({ key, failures: state.consumedPoints, locked, msLeft: state.msBeforeNext });
    }
    return states;
  }

  async fail(key: string): Promise<void> {
    this.#failing.add(key);
    await this.#limiter.consume(key).catch(() => undefined);
  }

  async clear(key: string): Promise<void> {
    if (!this.#failing.delete(key)) return;
    await this.#limiter.delete(key);
  }
}
