import { AsyncLocalStorage } from 'node:async_hooks';

/** Who statements run for when no token's call is behind them: Sluice's own schema polling. */
const SLUICE = '\u0000sluice';

const owners = new AsyncLocalStorage<string>();

/**
 * Runs `work` for `owner` (a principal's id): every session the database layer takes while it runs is
 * that owner's. Context rather than a parameter because it must reach every session of every engine
 * under every Database method, and SessionShares is the one place a call becomes a token's.
 */
export function runAs<T>(owner: string, work: () => T): T {
  return owners.run(owner, work);
}

/** The owner of the statement being started: read before its first `await`. */
export function sessionOwner(): string {
  return owners.getStore() ?? SLUICE;
}

/** When a pooled session must be reset before it serves `owner`. */
export type Handover<S extends object> = { handOver(session: S, owner: string): boolean };

/**
 * The owner that last used each pooled session (decisions.md, "Sessions, slots and answers"): a session
 * handed to another owner is reset first, so no statement observes what another token's statement left
 * on it. The same owner keeps its session state and pays nothing.
 */
export class SessionOwners<S extends object> implements Handover<S> {
  readonly #owners = new WeakMap<S, string>();

  /** Records `owner` as the session's user; true when another owner used it before, so it needs a reset. */
  handOver(session: S, owner: string): boolean {
    const last = this.#owners.get(session);
    this.#owners.set(session, owner);
    return last !== undefined && last !== owner;
  }
}
