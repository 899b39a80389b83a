import { DriverFailure } from '../driverFailure.js';
import type { Database } from '../database.js';

/** A driver the catalog can take out of use while statements still run on it. */
export type Retirable = {
  db: Database;
  /** Stops what runs on it (each statement ends with `why`, as a `not_connected` failure) and closes it. */
  retire(why: string): Promise<void>;
  /** Closes it once nothing runs on it: unlike `retire`, it stops nothing. */
  release(): Promise<void>;
};

/** `signal`, or a method's `{ signal }` options, joined with the retirement signal. */
function withRetirement(arg: unknown, retirement: AbortSignal): unknown {
  if (arg instanceof AbortSignal) return AbortSignal.any([arg, retirement]);
  if (typeof arg === 'object' && arg !== null && (arg as { signal?: unknown }).signal instanceof AbortSignal) {
    const options = arg as { signal: AbortSignal };
    return { ...options, signal: AbortSignal.any([options.signal, retirement]) };
  }
  return arg;
}

/**
 * `db` with every call's signal also aborted when it is retired, so each driver stops the statement
 * in the database (PostgreSQL `pg_cancel_backend`, MySQL `KILL QUERY`, SQLite ends its process)
 * before the pools close; closing alone would wait for a PostgreSQL statement to finish.
 */
export function retirable(db: Database): Retirable {
  const retirement = new AbortController();
  const ended = () => retirement.signal.reason as DriverFailure;
  let running = 0;
  let released: (() => void) | undefined;
  const settled = () => {
    running -= 1;
    if (running === 0) released?.();
  };
  const proxy = new Proxy(db, {
    get: (target, property, receiver) => {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      // Bound to the driver itself: its methods read its private fields, which a proxy has not.
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(target, args.map((a) => withRetirement(a, retirement.signal)));
        if (!(result instanceof Promise)) return result;
        running += 1;
        return result
          .catch((error: unknown) => {
            throw retirement.signal.aborted ? ended() : error;
          })
          .finally(settled);
      };
    },
  });
  return {
    db: proxy,
    async retire(why) {
      retirement.abort(new DriverFailure('not_connected', why));
      await db.close();
    },
    async release() {
      if (running > 0) await new Promise<void>((resolve) => (released = resolve));
      await db.close();
    },
  };
}
