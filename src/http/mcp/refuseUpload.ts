import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppClock } from '../../core/clock.js';
import { TRANSPORT } from '../../core/contract.js';
import { sendJson } from '../respond.js';

/**
 * Answers a request refused before its body was read (unauthenticated, too large, too deeply nested)
 * and closes the connection; an upload still arriving is discarded for a moment (`refusedUploadDrainMs`).
 */
export function refuseUpload(
  req: IncomingMessage,
  res: ServerResponse,
  clock: AppClock,
  status: number,
  body: unknown,
  headers: Record<string, string>,
): void {
  req.resume();
  sendJson(res, status, body, { ...headers, connection: 'close' });
  res.once('finish', () => {
    const socket = res.socket;
    if (!socket || socket.destroyed) return;
    const timer = clock.setTimeout(() => socket.destroy(), TRANSPORT.refusedUploadDrainMs);
    socket.once('close', () => clock.clearTimeout(timer));
  });
}
