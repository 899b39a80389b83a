import { describe, expect, it } from 'vitest';
import { TRANSPORT } from '../../../src/core/contract.js';
import { byteLength, encodePieces, fitsOnePiece } from '../../../src/http/piecewiseJson.js';

const PIECE = TRANSPORT.responsePieceChars;

describe('encodePieces', () => {
  it('encodes long text in pieces of at most responsePieceChars characters, never splitting a surrogate pair', async () => {
    // After the opening quote, an emoji (two UTF-16 units) straddles the first piece's end; é takes two bytes.
    const long = `${'é'.repeat(PIECE - 2)}🙂${'x'.repeat(PIECE)}`;
    const pieces = ['{"a":', JSON.stringify(long), '}'];
    const buffers = await encodePieces(pieces, () => false);
    expect(Buffer.concat(buffers).equals(Buffer.from(pieces.join('')))).toBe(true);
    expect(byteLength(buffers)).toBe(Buffer.byteLength(pieces.join('')));
    expect(buffers.map((buffer) => buffer.toString().length)).toEqual([5, PIECE - 1, PIECE, 3, 1]);
  });

  it('stops once the response is abandoned', async () => {
    let pieces = 0;
    const buffers = await encodePieces(['x'.repeat(3 * PIECE)], () => ++pieces === 2);
    expect(buffers).toHaveLength(2);
  });
});

describe('fitsOnePiece', () => {
  it('is true up to responsePieceChars characters in all', () => {
    expect(fitsOnePiece(['x'.repeat(PIECE - 1), 'y'])).toBe(true);
    expect(fitsOnePiece(['x'.repeat(PIECE), 'y'])).toBe(false);
  });
});
