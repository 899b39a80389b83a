import { describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.js';
import { SessionOwners, sessionOwner } from '../../../src/db/connections/sessionOwner.js';
import { SessionShares } from '../../../src/db/connections/sessionShares.js';

/** A database that reports whom each call runs for, after an await as a driver's session would. */
class OwnerDatabase {
  readonly engine = 'sqlite';
  readonly sessions = 4;
  readonly #name = 'main';

  defaultSchema() {
    return `${this.#name} for ${sessionOwner()}`;
  }

  async read() {
    await new Promise((resolve) => setImmediate(resolve));
    return sessionOwner();
  }
}

describe('session owners: a session handed to another owner is reset, the same owner keeps it', () => {
  it('every call through a token’s share runs as that token, session method or not; other calls as Sluice', async () => {
    const shares = new SessionShares();
    const db = new OwnerDatabase() as unknown as Database;
    const [a, b] = [shares.forToken(db, 'c', 'token-a'), shares.forToken(db, 'c', 'token-b')];
    expect(await Promise.all([a.read('x', {} as never), b.read('x', {} as never), a.read('y', {} as never)])).toEqual(['token-a', 'token-b', 'token-a']);
    expect(a.defaultSchema()).toBe('main for token-a');
    expect(await db.read('x', {} as never)).toBe('\u0000sluice');
  });

  it('handOver: a new session needs no reset; another owner does; the same owner again does not', () => {
    const owners = new SessionOwners<object>();
    const session = {};
    expect(owners.handOver(session, 'a')).toBe(false);
    expect(owners.handOver(session, 'a')).toBe(false);
    expect(owners.handOver(session, 'b')).toBe(true);
    expect(owners.handOver(session, 'b')).toBe(false);
    expect(owners.handOver(session, 'a')).toBe(true);
    expect(owners.handOver({}, 'b')).toBe(false);
  });
});
