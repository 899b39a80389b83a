import { ErrorCode, ProtocolError } from '../../core/errors.js';
import { errorResponse } from '../../protocol/wire.js';
import { sendJson } from '../respond.js';
import type { Guard } from './guard.js';

/** A connection past the most open at once, with none to give way, is answered `-33000` and closed. */
export const connectionLimit: Guard = (req, res, { limits, slots }) => {
  if (!slots.isOverflow(req.socket)) return false;
  const reply = errorResponse(null, new ProtocolError(ErrorCode.ServerUnavailable, `Too many connections: at most ${limits.maxConnections}`));
  sendJson(res, reply.status, reply.body, { connection: 'close', 'retry-after': '1' });
  return true;
};
