import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { TRANSPORT } from '../../../src/core/contract.js';
import { byteLength, encodePieces, fitsOnePiece, writePieces } from '../../../src/http/piecewiseJson.js';

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

/** A response whose socket is full after every write, until it drains (`drain()`), or closes (`close()`). */
class FullSocket extends EventEmitter {
  written: string[] = [];
  destroyed = false;
  write(buffer: Buffer): boolean {
    this.written.push(buffer.toString());
    return false;
  }
  drain(): void {
    this.emit('drain');
  }
  close(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

describe('writePieces', () => {
  const pieces = ['a', 'b', 'c'].map((text) => Buffer.from(text));
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it('writes the next piece only once the socket has drained', async () => {
    const res = new FullSocket();
    const done = writePieces(res as unknown as ServerResponse, pieces);
    await turn();
    await turn();
    expect(res.written).toEqual(['a']);
    res.drain();
    await turn();
    expect(res.written).toEqual(['a', 'b']);
    res.drain();
    await turn();
    res.drain();
    expect(await done).toBe(true);
    expect(res.written).toEqual(['a', 'b', 'c']);
    expect(res.listenerCount('drain') + res.listenerCount('close')).toBe(0);
  });

  it('stops, false, when the response closes while it waits', async () => {
    const res = new FullSocket();
    const done = writePieces(res as unknown as ServerResponse, pieces);
    await turn();
    res.close();
    expect(await done).toBe(false);
    expect(res.written).toEqual(['a']);
  });
});
