import { describe, expect, it } from 'vitest';
import { UNDO } from '../../../src/core/contract.js';
import { exactBytes } from '../../../src/db/keepSteps.js';
import type { KeptRows } from '../../../src/db/keptWrites.js';
import { joinKeptPiece, keptPieces, withoutRows } from '../../../src/db/engines/sqlite/queryProcessMessages.js';

/** Kept rows go to and from the SQLite query process in pieces of about UNDO.pieceBytes, and come back whole. */
describe('kept rows in pieces', () => {
  // 10,000 characters of text and a key: each row is counted as 10,019 bytes (exactBytes).
  const row = (id: number) => [{ i: String(id) }, 'x'.repeat(10_000)];
  const rows: KeptRows = {
    columns: ['id', 'body'],
    keys: [0],
    before: Array.from({ length: 60 }, (_, i) => row(1000 + i)),
    after: Array.from({ length: 3 }, (_, i) => row(2000 + i)),
  };

  it('cuts each side at the first row that reaches the piece size, before first, and joins back to the same rows', () => {
    expect(exactBytes(row(1000))).toBe(10_019);
    const perPiece = Math.ceil(UNDO.pieceBytes / 10_019);
    expect(UNDO.pieceBytes).toBe(256 * 1024);
    const pieces = [...keptPieces(7, rows)];
    expect(pieces.map((p) => [p.id, p.keptPiece.side, p.keptPiece.rows.length])).toEqual([
      [7, 'before', perPiece],
      [7, 'before', perPiece],
      [7, 'before', 60 - 2 * perPiece],
      [7, 'after', 3],
    ]);
    const joined = withoutRows(rows);
    expect(joined).toEqual({ columns: ['id', 'body'], keys: [0], before: [], after: [] });
    for (const piece of pieces) joinKeptPiece(joined, piece);
    expect(joined).toEqual(rows);
  });

  it("carries an undo's absent rows (null on one side of a pair) in place", () => {
    const undone: KeptRows = { columns: ['id', 'body'], keys: [0], before: [row(1), null, row(3)], after: [null, row(2), row(3)] };
    const joined = withoutRows(undone);
    for (const piece of keptPieces(2, undone)) joinKeptPiece(joined, piece);
    expect(joined).toEqual(undone);
  });

  it('sends no piece for no rows', () => {
    expect([...keptPieces(1, withoutRows(rows))]).toEqual([]);
  });
});
