import { describe, expect, it } from 'vitest';
import type { HeldPage } from '../../../src/db/database.js';
import { handedOn } from '../../../src/db/results/heldPages.js';

/**
 * A held read's page hands on what its reader keeps (the token budget may keep fewer rows than the
 * driver read), and the read stays open while rows remain after them, read or not (issue 30).
 */

const page = (rows: number, more: boolean): HeldPage => ({
  result: { columns: [{ name: 'id', type: 'int' }], rows: Array.from({ length: rows }, (_, i) => [i + 1]), truncated: more, rowsAffected: 0 },
  more,
});

describe('handedOn', () => {
  it('hands on every row when the reader does not say, rows remaining as the driver says', async () => {
    expect(await handedOn(page(10, true), undefined)).toEqual({ handed: 10, more: true });
    expect(await handedOn(page(10, false), undefined)).toEqual({ handed: 10, more: false });
  });

  it('keeps the read open when the reader kept fewer rows than the driver read, even a page read to the end', async () => {
    const seen: [number, boolean][] = [];
    const keepFour = async (result: HeldPage['result'], more: boolean) => (seen.push([result.rows.length, more]), 4);
    expect(await handedOn(page(10, false), keepFour)).toEqual({ handed: 4, more: true });
    expect(await handedOn(page(10, true), keepFour)).toEqual({ handed: 4, more: true });
    expect(seen).toEqual([
      [10, false],
      [10, true],
    ]);
  });

  it('ends the read on a page that hands on no row (its next page would be the same), and counts at most the page', async () => {
    expect(await handedOn(page(10, true), async () => 0)).toEqual({ handed: 0, more: false });
    expect(await handedOn(page(10, false), async () => 11)).toEqual({ handed: 10, more: false });
    expect(await handedOn(page(0, true), undefined)).toEqual({ handed: 0, more: false });
  });
});
