import { UNVERIFIED_BEARERS } from '../core/contract.js';

export type UnverifiedBearerPolicy = { perWindow: number; windowMs: number };

/**
 * One budget for every request whose bearer token does not verify, whoever sends it: past it, such
 * requests are refused until the window ends. It is keyed on nothing a client presents (every client
 * is 127.0.0.1, and a token's prefix is public), and a token that verifies never consults it, so a
 * flood of bad tokens slows guessing without refusing anyone who holds a real token.
 */
export class UnverifiedBearers {
  readonly #policy: UnverifiedBearerPolicy;
  readonly #now: () => number;
  #windowStart = Number.NEGATIVE_INFINITY;
  #counted = 0;
  #refused = 0;

  constructor(now: () => number, policy: UnverifiedBearerPolicy = UNVERIFIED_BEARERS) {
    this.#now = now;
    this.#policy = policy;
  }

  /** The window under way, when it has counted a token: whether its budget is spent and when it ends. */
  window(): { counted: number; refused: number; spent: boolean; endsAt: number } | undefined {
    const endsAt = this.#windowStart + this.#policy.windowMs;
    if (this.#counted === 0 || endsAt <= this.#now()) return undefined;
    return { counted: this.#counted, refused: this.#refused, spent: this.#counted >= this.#policy.perWindow, endsAt };
  }

  /** Forgets the window under way (an administrator's clear): the next token that does not verify opens a new one. */
  reset(): void {
    this.#windowStart = Number.NEGATIVE_INFINITY;
    this.#counted = 0;
    this.#refused = 0;
  }

  /**
   * Counts one failed verification: 0 while the window's budget lasts, else the whole seconds until
   * it ends, and whether this is the window's first refusal (the one worth an activity row).
   */
  fail(): { retryAfter: number; firstRefusal: boolean } {
    const now = this.#now();
    if (now - this.#windowStart >= this.#policy.windowMs) {
      this.#windowStart = now;
      this.#counted = 0;
      this.#refused = 0;
    }
    if (this.#counted < this.#policy.perWindow) {
      this.#counted++;
      return { retryAfter: 0, firstRefusal: false };
    }
    this.#refused++;
    const left = this.#windowStart + this.#policy.windowMs - now;
    return { retryAfter: Math.max(1, Math.ceil(left / 1000)), firstRefusal: this.#refused === 1 };
  }
}
