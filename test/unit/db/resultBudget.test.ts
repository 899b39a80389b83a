import { describe, expect, it } from 'vitest';
import { blobHex, cutValue, jsonLength, RowBudget } from '../../../src/db/results/resultBudget.js';

describe('jsonLength: the JSON text a client receives', () => {
  it.each([['abc'], ['a"b\\c\n'], ['\u0001'], ['é🙂'], [12.5], [0], [-0], [9], [10], [-1234], [Number.MAX_SAFE_INTEGER], [1e21], [null], [true], [{ a: [1, 'x'] }]])('%j', (value) => {
    expect(jsonLength(value)).toBe(JSON.stringify(value).length);
  });
});

describe('cutValue and blobHex', () => {
  it('cuts to the limit with a marker naming the whole length, never splitting a surrogate pair', () => {
    for (const text of ['x'.repeat(10_000), '"'.repeat(10_000), '🙂'.repeat(10_000), '\u0000'.repeat(10_000)]) {
      const cut = cutValue(text, 1_000) as string;
      expect(jsonLength(cut)).toBeLessThanOrEqual(1_000);
      expect(cut).toMatch(new RegExp(`…\\[cut: ${text.length} characters in all\\]$`));
      expect(cut.isWellFormed()).toBe(true);
    }
  });

  it('hexes a small blob whole and a large one only as far as the limit', () => {
    expect(blobHex(Uint8Array.of(1, 255), 100)).toEqual({ text: '0x01ff', cut: false });
    const { text, cut } = blobHex(new Uint8Array(1_000_000), 1_000);
    expect(cut).toBe(true);
    expect(text.length).toBeLessThanOrEqual(1_000);
    expect(text).toMatch(/^0x0+…\[cut: 1000000 bytes in all\]$/);
  });
});

describe('RowBudget', () => {
  it('takes rows until the next would pass maxBytes; the JSON of what it took stays within it', () => {
    const budget = new RowBudget(1_000);
    const taken: unknown[][] = [];
    for (let i = 0; i < 100; i++) {
      const row = [i, 'abcdefghij'];
      if (!budget.take(row)) break;
      taken.push(row);
    }
    expect(taken.length).toBeGreaterThan(30);
    expect(JSON.stringify(taken).length).toBeLessThanOrEqual(1_000);
    expect(JSON.stringify(taken).length).toBe(budget.used);
  });

  it('cuts cells past the cell limit and counts them; the first row is cut to fit, never refused', () => {
    const budget = new RowBudget(10_000, 500);
    const first = ['y'.repeat(100_000), 'z'.repeat(100_000)];
    expect(budget.take(first)).toBe(true);
    expect(budget.cellsCut).toBe(2);
    expect(JSON.stringify(first).length).toBeLessThanOrEqual(1_010);
    const small = new RowBudget(100);
    expect(small.take(['w'.repeat(5_000)])).toBe(true);
    expect(small.take(['w'])).toBe(false);
  });
});
