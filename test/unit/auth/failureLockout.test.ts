import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FailureLockout } from '../../../src/auth/failureLockout.js';

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('FailureLockout', () => {
  it('locks a key out at the failures-th failure within the window, and a success clears the count', async () => {
    const lockout = new FailureLockout({ failures: 3, windowSeconds: 60, lockoutSeconds: 300 });
    await lockout.fail('a');
    await lockout.fail('a');
    expect(await lockout.retryAfter('a')).toBe(0);
    await lockout.clear('a');
    await lockout.fail('a');
    await lockout.fail('a');
    expect(await lockout.retryAfter('a')).toBe(0);
    await lockout.fail('a');
    expect(await lockout.retryAfter('a')).toBe(300);
    expect(await lockout.retryAfter('b')).toBe(0);
  });

  it('a success clears a failure counted while a check of the same key was under way', async () => {
    const lockout = new FailureLockout({ failures: 3, windowSeconds: 1, lockoutSeconds: 60 });
    await lockout.fail('k');
    vi.advanceTimersByTime(1_200);
    const checking = lockout.retryAfter('k');
    await lockout.fail('k');
    expect(await checking).toBe(0);
    await lockout.clear('k');
    await lockout.fail('k');
    await lockout.fail('k');
    expect(await lockout.retryAfter('k')).toBe(0);
    await lockout.fail('k');
    expect(await lockout.retryAfter('k')).toBe(60);
  });
});
