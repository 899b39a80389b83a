import type { Database, HeldRead, HeldResult } from '../database.js';
import { runAs } from './sessionOwner.js';

/** The methods of a Database that take a session of its pool while they run. */
const SESSION_METHODS = new Set<string | symbol>([
  'check',
  'read',
  'readPages',
  'holdRead',
  'write',
  'rehearse',
  'keepWrite',
  'restoreRows',
  'whyNotKept',
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

/** A held read's slot: how to close it when the token's newer statement needs the slot. */
type HeldSlot = { evict(): void };

/** `evicting`: held reads closed to free their slots for waiting statements, not yet given back. */
type Share = { running: number; waiting: (() => void)[]; held: HeldSlot[]; evicting: number };

/**
 * Each token's share of one connection's sessions (decisions.md): at most half the pool at once, at
 * least one, so another token always finds a session free. A token's statement past its share waits
 * for the token's own earlier statements, not for anyone else's; how many can wait is bounded by the
 * per-caller concurrency (8, then `-33010`). Waiting, not refusing: an assistant that runs three
 * tool calls at once on one SQLite file should not see two of them fail.
 *
 * A held read (`holdRead`'s rest, behind a `next_cursor`) keeps its slot until it is closed. A
 * statement of the same token that finds every slot of its share taken while one of them is held
 * closes the least recently opened held read and takes its slot: a token's cursors never make its own
 * next statement wait for them to expire.
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
            let kept = false;
            try {
              const result = await method.apply(target, args);
              if (property === 'holdRead' && (result as HeldResult).rest) {
                kept = true;
                return { ...(result as HeldResult), rest: this.#hold(key, (result as HeldResult).rest as HeldRead, release) };
              }
              return result;
            } finally {
              if (!kept) release();
            }
          });
      },
    });
  }

  /** Statements of `principalId` running on `connectionId` now (for tests and the inspector). */
  running(connectionId: string, principalId: string): number {
    return this.#shares.get(`${connectionId}\n${principalId}`)?.running ?? 0;
  }

  /** `rest` holding its slot of the share `key` until it is closed, by its reader or to free the slot. */
  #hold(key: string, rest: HeldRead, release: () => void): HeldRead {
    const share = this.#shares.get(key) as Share;
    const listeners: Array<(why: string) => void> = [];
    let evicted: string | undefined;
    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= rest.close().finally(() => {
        share.held = share.held.filter((held) => held !== slot);
        release();
      });
      return closing;
    };
    const slot: HeldSlot = {
      evict: () => {
        evicted ??= 'it was closed to free a session for a newer statement of the same token';
        for (const listener of listeners.splice(0)) listener(evicted);
        share.evicting += 1;
        void close()
          .catch(() => {})
          .finally(() => (share.evicting -= 1));
      },
    };
    share.held.push(slot);
    // Statements of the token may be waiting already, with every slot now held.
    makeRoom(share);
    return { next: (options) => rest.next(options), close, onEvicted: (listener) => (evicted === undefined ? listeners.push(listener) : listener(evicted)) };
  }

  async #take(key: string, limit: number): Promise<() => void> {
    let share = this.#shares.get(key);
    if (!share) {
      share = { running: 0, waiting: [], held: [], evicting: 0 };
      this.#shares.set(key, share);
    }
    const mine = share;
    if (mine.running >= limit) {
      const slot = new Promise<void>((resolve) => mine.waiting.push(resolve));
      makeRoom(mine);
      await slot;
    } else mine.running += 1;
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

/**
 * Closes the token's oldest held reads, one for each waiting statement no read being closed already
 * frees a slot for: the slot of a closed read passes to the next waiting statement.
 */
function makeRoom(share: Share): void {
  while (share.waiting.length > share.evicting && share.held.length > 0) (share.held.shift() as HeldSlot).evict();
}
