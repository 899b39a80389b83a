import { describe, expect, it } from 'vitest';
import { RowPages } from '../../../src/db/results/rowPages.js';

/** The pages of a read written out as it is read (export_data, issue 27). */
describe('RowPages', () => {
  it('fills a page up to its rows, then up to its bytes, and ends the read at max_rows', () => {
    const pages = new RowPages({ maxRows: 5, maxBytes: 1_000_000, pageRows: 2, pageBytes: 1_000_000 });
    expect([pages.take([1]), pages.full, pages.take([2]), pages.full]).toEqual([true, false, true, true]);
    expect(pages.next()).toEqual([[1], [2]]);
    expect(pages.full).toBe(false);
    for (const n of [3, 4, 5]) expect(pages.take([n])).toBe(true);
    expect(pages.take([6])).toBe(false);
    expect(pages.summary()).toEqual({ rows: 5, truncated: true, truncatedBy: 'max_rows', cellsCut: 0 });
    const bytes = new RowPages({ maxRows: 100, maxBytes: 1_000_000, pageRows: 100, pageBytes: 25 });
    bytes.take(['x'.repeat(10)]);
    expect(bytes.full).toBe(false);
    bytes.take(['x'.repeat(10)]);
    expect(bytes.full).toBe(true);
  });

  it('ends the read at the byte budget, and counts cut cells', () => {
    const pages = new RowPages({ maxRows: 100, maxBytes: 120, cellBytes: 50, pageRows: 100, pageBytes: 1_000 });
    expect(pages.take(['y'.repeat(80)])).toBe(true);
    expect(pages.take(['z'.repeat(40)])).toBe(true);
    expect(pages.take(['z'.repeat(40)])).toBe(false);
    expect(pages.summary()).toEqual({ rows: 2, truncated: true, truncatedBy: 'max_bytes', cellsCut: 1 });
  });
});
