import { describe, expect, it } from 'vitest';
import { blobHex, cutValue, jsonLength, RowBudget, textLength } from '../../../src/db/results/resultBudget.js';
import { valueText } from '../../../src/db/results/valueText.js';

describe('jsonLength: the UTF-8 bytes of the JSON text a client receives', () => {
  it.each([['abc'], ['a"b\\c\n'], ['\u0001'], ['é🙂'], [12.5], [0], [-0], [9], [10], [-1234], [Number.MAX_SAFE_INTEGER], [1e21], [null], [true], [{ a: [1, 'x'] }]])('%j', (value) => {
    expect(jsonLength(value)).toBe(Buffer.byteLength(JSON.stringify(value)));
  });
});

describe('textLength: the UTF-8 bytes of a value in the answer\'s text, once escaped', () => {
  it.each([['abc'], [''], ['NULL'], [' edge'], ['a"b\\c\n'], ['\u0001'], ['é🙂'], ['\ud800'], ['tab\there'], ['\u2028'], ['a\u007f'], [12.5], [NaN], [-0], [1234], [null], [true], [[1, 'a,b', null]], [{ a: [1, 'x'] }]])('%j', (value) => {
    expect(textLength(value)).toBe(Buffer.byteLength(JSON.stringify(valueText(value))) - 2);
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
  it('an answer\'s budget counts columns, header line and rows twice; its columns stop where they no longer fit', () => {
    const budget = new RowBudget(4_096, { answer: true });
    const columns = budget.takeColumns(Array.from({ length: 100 }, (_, i) => ({ name: `column_${i}`.padEnd(60, 'x'), type: 'int' })), 100);
    expect(columns.length).toBeGreaterThan(5);
    expect(budget.columnsLeftOut).toBe(100 - columns.length);
    const rows: unknown[][] = [];
    for (let i = 0; i < 100; i++) {
      const row = Array.from({ length: 100 }, () => 'é'.repeat(500));
      if (!budget.take(row)) break;
      rows.push(row);
    }
    expect(rows).toHaveLength(1);
    expect(rows[0]).toHaveLength(columns.length);
    const text = [columns.map((c) => valueText(c.name)).join('\t'), ...rows.map((r) => r.map(valueText).join('\t'))].join('\n');
    const bytes = Buffer.byteLength(JSON.stringify(columns)) + Buffer.byteLength(JSON.stringify(rows)) + Buffer.byteLength(JSON.stringify(text));
    expect(bytes).toBeLessThanOrEqual(4_096);
    expect(budget.outcome(undefined)).toMatchObject({ truncated: true, truncatedBy: 'max_bytes', columnsLeftOut: 100 - columns.length });
  });

  it('a name longer than the whole budget is cut to fit, with the value marker; the columns after it still fit', () => {
    const budget = new RowBudget(4_096, { answer: true });
    const [column, ...rest] = budget.takeColumns([{ name: 'n'.repeat(100_000), type: 'TEXT' }, { name: 'next', type: 'TEXT' }], 2);
    expect(column?.name).toMatch(/^n+…\[cut: 100000 characters in all\]$/);
    expect(rest).toEqual([{ name: 'next', type: 'TEXT' }]);
    expect(budget.used).toBeLessThan(4_096);
    expect(budget.outcome(undefined)).toMatchObject({ truncated: true, truncatedBy: 'max_bytes' });
    expect(budget.outcome(undefined)).not.toHaveProperty('columnsLeftOut');
  });

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
    const budget = new RowBudget(10_000, { cellBytes: 500 });
    const first = ['y'.repeat(100_000), 'z'.repeat(100_000)];
    expect(budget.take(first)).toBe(true);
    expect(budget.cellsCut).toBe(2);
    expect(JSON.stringify(first).length).toBeLessThanOrEqual(1_010);
    const small = new RowBudget(100);
    expect(small.take(['w'.repeat(5_000)])).toBe(true);
    expect(small.take(['w'])).toBe(false);
  });
});
