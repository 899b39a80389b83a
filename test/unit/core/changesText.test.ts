import { describe, expect, it } from 'vitest';
import { changedCells, changesTableLines, effectText } from '../../../src/core/shared/statementText.js';

/** A tried write's rows in words, as `sluice approvals` and the elicitation message show them. */
describe('the exact effect in words', () => {
  it('says how many rows will change, or the estimate and why the write was not tried', () => {
    expect(effectText({ rows: 1, basis: 'exact' })).toBe('1 row will change (tried, then rolled back)');
    expect(effectText({ rows: 3, basis: 'counted', notExact: 'noted has triggers' })).toBe('about 3 rows (estimate: counted); not tried: noted has triggers');
    expect(effectText({ rows: null, reason: 'a sequence\u202e' })).toBe('no estimate (a sequence⟨U+202E⟩)');
  });

  it('marks the cells that change, and every cell of a row added or deleted', () => {
    expect(changedCells({ before: [1, 'a', null], after: [1, 'b', null] })).toEqual([false, true, false]);
    expect(changedCells({ before: null, after: [1, 2] })).toEqual([true, true]);
  });

  it('prints each row before and after, changed values starred, invisible characters escaped, and the rows not shown counted', () => {
    const effect = {
      rows: 3,
      columns: ['id', 'name'],
      changes: [
        { before: [1, 'Crime'], after: [1, 'Crime\u200b'] },
        { before: [2, 'Poetry'], after: null },
      ],
    };
    expect(changesTableLines(effect)).toEqual([
      '  | id | name',
      '--+----+-----------------',
      '- | 1  | "Crime"',
      '+ | 1  | "Crime⟨U+200B⟩"*',
      '- | 2  | "Poetry"',
      'and 1 more row',
    ]);
  });
});
