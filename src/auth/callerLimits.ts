import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ErrorCode, ProtocolError } from '../core/errors.js';
import { CALLER_LIMITS } from '../core/contract.js';

export type CallerLimitPolicy = { requestsPerWindow: number; windowSeconds: number; concurrent: number };

export const rateLimited = (retryAfterSeconds: number, message: string) =>
  new ProtocolError(ErrorCode.RateLimited, message, { retryAfter: retryAfterSeconds }, {
    'retry-after': String(retryAfterSeconds),
  });

/**
 * Per-caller request rate and concurrency. The request over either limit is refused at once with
 * `-33010` (never queued); `admit` returns the function that releases the concurrency slot.
 */
export class CallerLimits {
  readonly #rate: RateLimiterMemory;
  readonly #running = new Map<string, number>();
  readonly #policy: CallerLimitPolicy;

  constructor(policy: CallerLimitPolicy = CALLER_LIMITS) {
    this.#policy = policy;
    this.#rate = new RateLimiterMemory({ points: policy.requestsPerWindow, duration: policy.windowSeconds });
  }

  /** The callers whose request rate is spent, with what they sent and the milliseconds until their window ends. */
  async spent(): Promise<{ callerId: string; requests: number; msLeft: number }[]> {
    const spent = [];
    for (const { key } of this.#rate.dump().storage) {
      const state = await this.#rate.get(key);
      if (state && state.msBeforeNext > 0 && state.consumedPoints >= this.#policy.requestsPerWindow) {
        spent.push({ callerId: String(key), requests: state.consumedPoints, msLeft: state.msBeforeNext });
      }
    }
    return spent;
  }

  /** Starts the caller's rate window afresh (an administrator's clear); its requests at once are left alone. */
  async reset(callerId: string): Promise<void> {
    await this.#rate.delete(callerId);
  }

  async admit(callerId: string): Promise<() => void> {
    const running = this.#running.get(callerId) ?? 0;
    if (running >= this.#policy.concurrent) {
      throw rateLimited(1, `Rate limited: at most ${this.#policy.concurrent} requests at once per caller`);
    }
    // Take the slot before awaiting, so that simultaneous requests cannot all pass the check.
    this.#running.set(callerId, running + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.#running.get(callerId) ?? 1) - 1;
      if (left === 0) this.#running.delete(callerId);
      else this.#running.set(callerId, left);
    };
    try {
      await this.#rate.consume(callerId);
    } catch (error) {
      release();
      if (!(error instanceof RateLimiterRes)) throw error;
      const seconds = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
      throw rateLimited(seconds, `Rate limited: at most ${this.#policy.requestsPerWindow} requests per ${this.#policy.windowSeconds} s`);
    }
    return release;
  }
}
