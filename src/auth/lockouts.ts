import type { CallerLimits } from './callerLimits.js';
import type { FailureLockout } from './failureLockout.js';
import type { UnverifiedBearers } from './unverifiedBearers.js';

/** The limits that can hold a caller back for a while (docs/limits.md). */
export type LockoutLimit = 'exchange' | 'unverifiedBearers' | 'requests';

/**
 * One caller held back, or counting towards it, as the console and `sluice lockouts list` show it.
 * `who` is an address (`exchange`), a token id or, for anonymous callers, an address (`requests`), or
 * `*` (`unverifiedBearers`: one budget for every caller); `tokenName` names a token. `count` is what the limit counted: failed
 * exchanges, tokens that did not verify, requests. `until` (ISO, the application's clock) is when the
 * lock lifts, or, when not `locked`, when the count starts again.
 */
export type Lockout = {
  id: string;
  limit: LockoutLimit;
  who: string;
  tokenName?: string;
  locked: boolean;
  count: number;
  until: string;
};

export type LockoutSources = {
  exchange: FailureLockout;
  unverified: UnverifiedBearers;
  callers: CallerLimits;
  now(): number;
  tokenName(id: string): string | undefined;
};

const iso = (time: number) => new Date(time).toISOString();

/** Lists what the limits hold, and clears it: an administrator's way past a lockout. */
export class Lockouts {
  readonly #sources: LockoutSources;

  constructor(sources: LockoutSources) {
    this.#sources = sources;
  }

  async list(): Promise<Lockout[]> {
    const { exchange, unverified, callers } = this.#sources;
    const now = this.#sources.now();
    const lockouts: Lockout[] = (await exchange.states()).map((state) => ({
      id: `exchange:${state.key}`,
      limit: 'exchange',
      who: state.key,
      locked: state.locked,
      count: state.failures,
      until: iso(now + state.msLeft),
    }));
    const window = unverified.window();
    if (window) {
      lockouts.push({
        id: 'unverifiedBearers:*',
        limit: 'unverifiedBearers',
        who: '*',
        locked: window.spent,
        count: window.counted + window.refused,
        until: iso(window.endsAt),
      });
    }
    for (const spent of await callers.spent()) {
      const tokenName = this.#sources.tokenName(spent.callerId);
      lockouts.push({
        id: `requests:${spent.callerId}`,
        limit: 'requests',
        who: spent.callerId,
        ...(tokenName === undefined ? {} : { tokenName }),
        locked: true,
        count: spent.requests,
        until: iso(now + spent.msLeft),
      });
    }
    return lockouts;
  }

  /** Clears the lockout with this id; returns it as it was, or undefined when there is none. */
  async clear(id: string): Promise<Lockout | undefined> {
    const lockout = (await this.list()).find((candidate) => candidate.id === id);
    if (lockout) await this.#clear(lockout);
    return lockout;
  }

  /** Clears every lockout; returns them as they were. */
  async clearAll(): Promise<Lockout[]> {
    const lockouts = await this.list();
    for (const lockout of lockouts) await this.#clear(lockout);
    return lockouts;
  }

  async #clear(lockout: Lockout): Promise<void> {
    if (lockout.limit === 'exchange') await this.#sources.exchange.clear(lockout.who);
    else if (lockout.limit === 'unverifiedBearers') this.#sources.unverified.reset();
    else await this.#sources.callers.reset(lockout.who);
  }
}
