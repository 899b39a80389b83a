import { describe, expect, it } from 'vitest';
import { UnverifiedBearers } from '../../../src/auth/unverifiedBearers.js';

describe('UnverifiedBearers: one budget per window for every caller', () => {
  const policy = { perWindow: 3, windowMs: 10_000 };

  it('counts the budget, then refuses with the whole seconds left in the window', () => {
    let now = 1_000;
    const budget = new UnverifiedBearers(() => now, policy);
    for (let i = 0; i < 3; i++) expect(budget.fail()).toEqual({ retryAfter: 0, firstRefusal: false });
    now += 2_500;
    expect(budget.fail()).toEqual({ retryAfter: 8, firstRefusal: true });
    now += 7_400;
    expect(budget.fail()).toEqual({ retryAfter: 1, firstRefusal: false });
  });

  it('a new window starts a new budget and a new first refusal', () => {
    let now = 0;
    const budget = new UnverifiedBearers(() => now, policy);
    for (let i = 0; i < 4; i++) budget.fail();
    now = 10_000;
    for (let i = 0; i < 3; i++) expect(budget.fail().retryAfter).toBe(0);
    expect(budget.fail()).toEqual({ retryAfter: 10, firstRefusal: true });
  });
});
