import { Buffer } from 'node:buffer';
import type { ServerResponse } from 'node:http';
import { TRANSPORT } from '../core/contract.js';
import { nextTurn } from '../core/nextTurn.js';
import { toJsonPieces } from '../protocol/rawJson.js';
import { jsonHeaders } from './respond.js';

/** Text of at most this many characters is encoded and written at once. */
const PIECE_CHARS = TRANSPORT.responsePieceChars;

/**
 * `sendJson`, for an answer that may be large (a tool's result): its JSON is encoded a piece at a time,
 * a turn apart, its Content-Length the sum of the pieces' bytes, then written a piece at a time as the
 * socket drains. The bytes are those `sendJson` writes.
 */
export async function sendLargeJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): Promise<void> {
  const pieces = toJsonPieces(body);
  if (fitsOnePiece(pieces)) {
    const text = pieces.join('');
    res.writeHead(status, jsonHeaders(headers, Buffer.byteLength(text)));
    res.end(text);
    return;
  }
  const buffers = await encodePieces(pieces, () => res.destroyed);
  if (res.destroyed) return;
  res.writeHead(status, jsonHeaders(headers, byteLength(buffers)));
  if (await writePieces(res, buffers)) res.end();
}

/** Whether `pieces` together are short enough to encode and write in one turn. */
export function fitsOnePiece(pieces: readonly string[]): boolean {
  let length = 0;
  for (const piece of pieces) length += piece.length;
  return length <= PIECE_CHARS;
}

/**
 * `pieces` as UTF-8, in buffers of at most PIECE_CHARS characters each, encoded a turn apart: a long
 * piece is cut between two characters, never inside a surrogate pair, so the bytes are exactly those
 * of the whole text. Stops early (with what it has) once `abandoned()` says the response is gone.
 */
export async function encodePieces(pieces: readonly string[], abandoned: () => boolean): Promise<Buffer[]> {
  const buffers: Buffer[] = [];
  for (const piece of pieces) {
    for (let from = 0; from < piece.length; ) {
      let to = Math.min(piece.length, from + PIECE_CHARS);
      const last = piece.charCodeAt(to - 1);
      if (to < piece.length && last >= 0xd800 && last <= 0xdbff) to -= 1;
      buffers.push(Buffer.from(piece.slice(from, to), 'utf8'));
      from = to;
      await nextTurn();
      if (abandoned()) return buffers;
    }
  }
  return buffers;
}

/** Writes `buffers` to `res` a turn apart, waiting for it to drain whenever it asks to; false once the response is gone. */
export async function writePieces(res: ServerResponse, buffers: readonly Buffer[]): Promise<boolean> {
  for (const buffer of buffers) {
    if (res.destroyed) return false;
    if (res.write(buffer)) await nextTurn();
    else await drained(res);
  }
  return !res.destroyed;
}

/** Resolves once `res` drains, or closes. */
const drained = (res: ServerResponse) =>
  new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });

/** The sum of the buffers' lengths: the body's Content-Length. */
export const byteLength = (buffers: readonly Buffer[]): number => buffers.reduce((sum, buffer) => sum + buffer.length, 0);
