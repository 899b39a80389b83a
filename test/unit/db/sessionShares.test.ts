import { describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.js';
import { SessionShares } from '../../../src/db/connections/sessionShares.js';

/** A database whose reads finish when the test says so; like the real ones, it keeps private fields. */
class HeldDatabase {
  readonly engine = 'sqlite';
  readonly pending: (() => void)[] = [];
  readonly #schema = 'main';

  constructor(readonly sessions: number) {}

  defaultSchema() {
    return this.#schema;
  }

  read() {
    return new Promise<void>((resolve) => this.pending.push(resolve));
  }

  rehearse() {
    return this.read();
  }
}

function heldDatabase(sessions: number) {
  const held = new HeldDatabase(sessions);
  return { db: held as unknown as Database, finishOne: () => held.pending.shift()?.() };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SessionShares: half a connection’s sessions per token, the rest waits its turn', () => {
  it('a token runs at most half the pool; its next statement waits for its own, not for others', async () => {
    const shares = new SessionShares();
    const { db, finishOne } = heldDatabase(4);
    const a = shares.forToken(db, 'c', 'a');
    const b = shares.forToken(db, 'c', 'b');
    const runs = [1, 2, 3].map(() => a.read('x', {} as never));
    await tick();
    expect(shares.running('c', 'a')).toBe(2);
    void b.read('y', {} as never);
    await tick();
    expect(shares.running('c', 'b')).toBe(1);
    finishOne();
    await runs[0];
    await tick();
    expect(shares.running('c', 'a')).toBe(2);
    finishOne();
    finishOne();
    finishOne();
    await Promise.all(runs);
    await tick();
    expect(shares.running('c', 'a')).toBe(0);
  });

  it('a pool of one or two still gives each token one session; methods that take no session pass through', () => {
    const shares = new SessionShares();
    const { db } = heldDatabase(1);
    const shared = shares.forToken(db, 'c', 'a');
    void shared.read('x', {} as never);
    expect(shares.running('c', 'a')).toBe(1);
    expect(shared.defaultSchema()).toBe('main');
    expect(shared.sessions).toBe(1);
  });

  it('a write tried before consent takes a session of the token share, as the write itself does', async () => {
    const shares = new SessionShares();
    const { db, finishOne } = heldDatabase(2);
    const a = shares.forToken(db, 'c', 'a');
    const tried = a.rehearse({} as never, new AbortController().signal);
    await tick();
    expect(shares.running('c', 'a')).toBe(1);
    finishOne();
    await tried;
    await tick();
    expect(shares.running('c', 'a')).toBe(0);
  });
});

/** A database whose every read is cut and held open, until its rest is closed (counted in `closed`). */
class HoldingDatabase {
  readonly engine = 'postgres';
  closed = 0;

  constructor(readonly sessions: number) {}

  async holdRead() {
    return {
      result: { columns: [], rows: [], truncated: true, rowsAffected: 0 },
      rest: {
        next: async () => ({ result: { columns: [], rows: [], truncated: false, rowsAffected: 0 }, more: false }),
        close: async () => {
          this.closed += 1;
        },
      },
    };
  }

  async read() {
    return { columns: [], rows: [], truncated: false, rowsAffected: 0 };
  }
}

describe('SessionShares: a held read keeps its slot until it ends, and gives way to its own token', () => {
  it('counts held reads in the share; a statement finding the share held closes the oldest and runs', async () => {
    const shares = new SessionShares();
    const holding = new HoldingDatabase(4);
    const a = shares.forToken(holding as unknown as Database, 'c', 'a');
    const first = await a.holdRead!('x', {} as never);
    const second = await a.holdRead!('x', {} as never);
    const evicted: string[] = [];
    first.rest?.onEvicted?.((why) => evicted.push(`first: ${why}`));
    second.rest?.onEvicted?.((why) => evicted.push(`second: ${why}`));
    expect(shares.running('c', 'a')).toBe(2);
    await a.read('y', {} as never);
    expect(holding.closed).toBe(1);
    expect(evicted).toEqual(['first: it was closed to free a session for a newer statement of the same token']);
    // A listener that comes after the eviction hears of it at once.
    first.rest?.onEvicted?.((why) => evicted.push(`late: ${why}`));
    expect(evicted.at(-1)).toBe('late: it was closed to free a session for a newer statement of the same token');
    expect(shares.running('c', 'a')).toBe(1);
    await second.rest?.close();
    await second.rest?.close();
    expect(holding.closed).toBe(2);
    expect(shares.running('c', 'a')).toBe(0);
  });

  it('statements waiting at once, every slot held by reads made meanwhile, each get a slot (no deadlock)', async () => {
    const shares = new SessionShares();
    const holding = new HoldingDatabase(4);
    const a = shares.forToken(holding as unknown as Database, 'c', 'a');
    const calls = await Promise.all([
      a.holdRead!('x', {} as never),
      a.holdRead!('x', {} as never),
      a.read('y', {} as never),
      a.holdRead!('x', {} as never),
      a.read('y', {} as never),
      a.read('y', {} as never),
    ]);
    expect(calls).toHaveLength(6);
    expect(shares.running('c', 'a')).toBeLessThanOrEqual(2);
  });
});
