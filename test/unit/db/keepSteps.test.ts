import { describe, expect, it } from 'vitest';
import { exactBytes, keepSteps, type KeptSession } from '../../../src/db/keepSteps.js';
import type { ExactValue } from '../../../src/db/keptWrites.js';

/** A session that answers each statement from a script, by its text, and records what it was bound to. */
function scripted(answers: Record<string, { rows?: ExactValue[][]; rowsAffected?: number }>) {
  const calls: Array<{ sql: string; params: unknown[] }> = [];
  const session: KeptSession = {
    async exact(sql, params, keep) {
      calls.push({ sql, params });
      const rows = answers[sql]?.rows ?? [];
      const over = rows.length > keep.rows;
      return { rows: over ? [] : rows, rowsAffected: answers[sql]?.rowsAffected ?? 0, over };
    },
    async write(sql, params) {
      calls.push({ sql, params });
      return { columns: [], rows: [], truncated: false, cellsCut: 0, rowsAffected: answers[sql]?.rowsAffected ?? 0 };
    },
    bind: (value) => ({ bound: value }),
  };
  return { session, calls };
}

const plan = {
  verb: 'UPDATE' as const,
  columns: ['id', 'v'],
  keys: [0],
  before: { sql: 'before', params: [7] },
  statement: { sql: 'update', params: [7] },
  after: { sql: 'by keys', batch: 2 },
  maxRows: 10,
  maxBytes: 1_000,
};

/** The shared steps of a kept write (db/keepSteps.js), on a scripted session: what they run, bind and answer. */
describe('keepSteps', () => {
  it('reads the rows before, writes, and reads them again by key a batch at a time, the last batch padded with its last key', async () => {
    const before = [[{ i: '1' }, 'a'], [{ i: '2' }, 'b'], [{ i: '3' }, 'c']];
    const after = before.map(([id, v]) => [id ?? null, `${v}!`]);
    const { session, calls } = scripted({ before: { rows: before }, update: { rowsAffected: 3 }, 'by keys': { rows: after } });
    expect(await keepSteps(plan, session)).toEqual({
      result: { columns: [], rows: [], truncated: false, cellsCut: 0, rowsAffected: 3 },
      kept: { columns: ['id', 'v'], keys: [0], before, after },
    });
    expect(calls.map((c) => [c.sql, c.params])).toEqual([
      ['before', [7]],
      ['update', [7]],
      ['by keys', [{ bound: { i: '1' } }, { bound: { i: '2' } }]],
      ['by keys', [{ bound: { i: '3' } }, { bound: { i: '3' } }]],
    ]);
  });

  it('keeps nothing when the write changed more rows than its condition selected before', async () => {
    const { session } = scripted({ before: { rows: [[{ i: '1' }, 'a']] }, update: { rowsAffected: 2 } });
    expect(await keepSteps(plan, session)).toMatchObject({ notKept: 'it changed rows its condition did not select beforehand' });
  });

  it('keeps nothing when the rows before and after together pass maxBytes, though each side fits', async () => {
    const row = [{ i: '1' }, 'x'.repeat(40)];
    const { session } = scripted({ before: { rows: [row] }, update: { rowsAffected: 1 }, 'by keys': { rows: [row] } });
    const maxBytes = exactBytes(row) + 1;
    expect(await keepSteps({ ...plan, maxBytes }, session)).toMatchObject({ notKept: `it changes more than 10 rows or ${maxBytes} bytes of them` });
  });

  it('counts a row as about its JSON size', () => {
    expect(exactBytes([null, 'ab', { i: '12' }, { b: 'AAEC' }])).toBe(2 + 5 + 5 + 12 + 14);
  });
});
