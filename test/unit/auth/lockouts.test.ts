import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallerLimits } from '../../../src/auth/callerLimits.js';
import { ErrorCode } from '../../../src/core/errors.js';
import { FailureLockout } from '../../../src/auth/failureLockout.js';
import { Lockouts } from '../../../src/auth/lockouts.js';
import { UnverifiedBearers } from '../../../src/auth/unverifiedBearers.js';

/** The rate limiters keep their own (real) time: Vitest's fake timers move it; the app clock is `now`. */
const START = Date.UTC(2026, 0, 1);

let now = START;
let exchange: FailureLockout;
let unverified: UnverifiedBearers;
let callers: CallerLimits;
let lockouts: Lockouts;

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(START);
  now = START;
  exchange = new FailureLockout({ failures: 3, windowSeconds: 60, lockoutSeconds: 300 });
  unverified = new UnverifiedBearers(() => now, { perWindow: 2, windowMs: 10_000 });
  callers = new CallerLimits({ requestsPerWindow: 2, windowSeconds: 60, concurrent: 8 });
  lockouts = new Lockouts({
    exchange,
    unverified,
    callers,
    now: () => now,
    tokenName: (id) => (id === 'tok_000000000001' ? 'laptop' : undefined),
  });
});

afterEach(() => {
  vi.useRealTimers();
});

const iso = (time: number) => new Date(time).toISOString();

/** Moves the limiters' time and the application's together. */
function advance(ms: number): void {
  vi.advanceTimersByTime(ms);
  now += ms;
}

async function admitted(caller: string): Promise<boolean> {
  try {
    (await callers.admit(caller))();
    return true;
  } catch (error) {
    expect((error as { code: number }).code).toBe(ErrorCode.RateLimited);
    return false;
  }
}

describe('Lockouts: every limit that holds a caller back, listed and cleared', () => {
  it('nothing counted: an empty list, and clearing an unknown id finds nothing', async () => {
    expect(await lockouts.list()).toEqual([]);
    expect(await lockouts.clear('exchange:127.0.0.1')).toBeUndefined();
    expect(await lockouts.clearAll()).toEqual([]);
  });

  it('an address counting failed exchanges, then locked out until the lockout ends; cleared, it may try again', async () => {
    await exchange.fail('127.0.0.1');
    expect(await lockouts.list()).toEqual([
      { id: 'exchange:127.0.0.1', limit: 'exchange', who: '127.0.0.1', locked: false, count: 1, until: iso(START + 60_000) },
    ]);
    advance(5_000);
    await exchange.fail('127.0.0.1');
    await exchange.fail('127.0.0.1');
    expect(await exchange.retryAfter('127.0.0.1')).toBe(300);
    expect(await lockouts.list()).toEqual([
      { id: 'exchange:127.0.0.1', limit: 'exchange', who: '127.0.0.1', locked: true, count: 3, until: iso(START + 305_000) },
    ]);

    const cleared = await lockouts.clear('exchange:127.0.0.1');
    expect(cleared).toMatchObject({ id: 'exchange:127.0.0.1', locked: true, count: 3 });
    expect(await exchange.retryAfter('127.0.0.1')).toBe(0);
    expect(await lockouts.list()).toEqual([]);
    // The count starts from nothing again: two more failures do not lock it.
    await exchange.fail('127.0.0.1');
    await exchange.fail('127.0.0.1');
    expect(await exchange.retryAfter('127.0.0.1')).toBe(0);
  });

  it('the shared budget of tokens that do not verify: spent until its window ends, on the application clock; cleared, it counts afresh', async () => {
    expect(unverified.fail().retryAfter).toBe(0);
    now += 1_000;
    expect(unverified.fail().retryAfter).toBe(0);
    expect(unverified.fail().retryAfter).toBe(9);
    expect(await lockouts.list()).toEqual([
      { id: 'unverifiedBearers:*', limit: 'unverifiedBearers', who: '*', locked: true, count: 3, until: iso(START + 10_000) },
    ]);
    expect(await lockouts.clear('unverifiedBearers:*')).toMatchObject({ locked: true, count: 3 });
    expect(await lockouts.list()).toEqual([]);
    expect(unverified.fail().retryAfter).toBe(0);
    expect(unverified.fail().retryAfter).toBe(0);
    expect(unverified.fail().retryAfter).toBe(10);
    // Once the window has passed it is not listed, spent or not.
    now += 10_000;
    expect(await lockouts.list()).toEqual([]);
  });

  it('a token over its request rate is listed by id and name until its window ends; cleared, its next request is served', async () => {
    expect(await admitted('tok_000000000001')).toBe(true);
    expect(await admitted('tok_000000000001')).toBe(true);
    expect(await admitted('127.0.0.1')).toBe(true);
    expect(await admitted('tok_000000000001')).toBe(false);
    advance(20_000);
    // Only callers whose rate is spent: the anonymous caller with one request is not held back.
    expect(await lockouts.list()).toEqual([
      {
        id: 'requests:tok_000000000001',
        limit: 'requests',
        who: 'tok_000000000001',
        tokenName: 'laptop',
        locked: true,
        count: 3,
        until: iso(START + 60_000),
      },
    ]);
    expect(await lockouts.clear('requests:tok_000000000001')).toMatchObject({ who: 'tok_000000000001', tokenName: 'laptop' });
    expect(await admitted('tok_000000000001')).toBe(true);
  });

  it('clearAll clears every kind at once and returns what it cleared', async () => {
    for (let i = 0; i < 3; i++) await exchange.fail('::1');
    for (let i = 0; i < 3; i++) unverified.fail();
    for (let i = 0; i < 3; i++) await admitted('tok_0000000000ff');
    const cleared = await lockouts.clearAll();
    expect(cleared.map((l) => l.id)).toEqual(['exchange:::1', 'unverifiedBearers:*', 'requests:tok_0000000000ff']);
    expect(cleared[2]).not.toHaveProperty('tokenName');
    expect(await lockouts.list()).toEqual([]);
    expect(await exchange.retryAfter('::1')).toBe(0);
    expect(unverified.fail().retryAfter).toBe(0);
    expect(await admitted('tok_0000000000ff')).toBe(true);
  });
});
