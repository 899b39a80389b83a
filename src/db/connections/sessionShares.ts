import type { Database } from '../database.js';
import { runAs } from './sessionOwner.js';

/** The methods of a Database that take a session of its pool while they run. */
const SESSION_METHODS = new Set<string | symbol>([
  'check',
  'read',
  'readPages',
  'write',
  'rehearse',
  'browse',
  'explain',
  'schemaVersion',
  'listDatabases',
  'listSchemas',
  'listTables',
  'describeTable',
  'tableDdl',
  'countRows',
  'countRowsWithin',
]);

type Share = { running: number; waiting: (() => void)[] };

/**
 * Each token's share of one connection's sessions (decisions.md): at most half the pool at once, at
 * least one, so another token always finds a session free. A token's statement past its share waits
 * for the token's own earlier statements, not for anyone else's; how many can wait is bounded by the
 * per-caller concurrency (8, then `-33010`). Waiting, not refusing: an assistant that runs three
 * tool calls at once on one SQLite file should not see two of them fail.
 */
export class SessionShares {
  readonly #shares = new Map<string, Share>();

  /**
   * `db` as `principalId` may use it: every call that needs a session first takes one of its share, and
   * every call runs as `principalId`'s (sessionOwner.ts), so a session another token used is reset first.
   */
  forToken(db: Database, connectionId: string, principalId: string): Database {
    const key = `${connectionId}\n${principalId}`;
    const limit = Math.max(1, Math.floor(db.sessions / 2));
    return new Proxy(db, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        // Applied to the database itself: its methods read its private fields, which a proxy has not.
        const method = value as (...a: unknown[]) => unknown;
        if (!SESSION_METHODS.has(property)) return (...args: unknown[]) => runAs(principalId, () => method.apply(target, args));
        return (...args: unknown[]) =>
          runAs(principalId, async () => {
            const release = await this.#take(key, limit);
            try {
              return await method.apply(target, args);
            } finally {
              release();
            }
          });
      },
    });
  }

  /** Statements of `principalId` running on `connectionId` now (for tests and the inspector). */
  running(connectionId: string, principalId: string): number {
    return this.#shares.get(`${connectionId}\n${principalId}`)?.running ?? 0;
  }

  async #take(key: string, limit: number): Promise<() => void> {
    let share = this.#shares.get(key);
    if (!share) {
      share = { running: 0, waiting: [] };
      this.#shares.set(key, share);
    }
    const mine = share;
    if (mine.running >= limit) await new Promise<void>((resolve) => mine.waiting.push(resolve));
    else mine.running += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = mine.waiting.shift();
      // The slot passes straight to the next waiter; the count only drops when nobody waits.
      if (next) next();
      else if (--mine.running === 0) this.#shares.delete(key);
    };
  }
}
