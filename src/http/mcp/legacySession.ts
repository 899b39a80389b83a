import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../../auth/principal.js';
import { ErrorCode, ProtocolError } from '../../core/errors.js';
import { readClientInfo } from '../../protocol/era.js';
import type { Params, RequestId } from '../../protocol/jsonrpc.js';
import { initializeResult, initializeVersion } from '../../protocol/legacy.js';
import { resultResponse } from '../../protocol/wire.js';
import type { LegacySessions } from '../../runtime/legacySessions.js';
import { sendJson } from '../respond.js';

/** The legacy session a request names; a request other than `initialize` must name one. */
export function legacySessionHeader(req: IncomingMessage): string {
  const value = req.headers['mcp-session-id'];
  if (typeof value !== 'string' || value.length === 0) {
    throw new ProtocolError(ErrorCode.InvalidRequest, 'Invalid request: Mcp-Session-Id is required (send initialize first)');
  }
  return value;
}

/** `initialize` (legacy era): a new session owned by the caller's token, its id in `Mcp-Session-Id`. */
export function initialize(
  res: ServerResponse,
  headers: Record<string, string>,
  sessions: LegacySessions,
  principal: Principal,
  message: { id: RequestId; params: Params },
): void {
  const version = initializeVersion(message.params);
  const sessionId = sessions.open(principal, version, readClientInfo(message.params.clientInfo, 'params.clientInfo'));
  sendJson(res, 200, resultResponse(message.id, initializeResult(version)), { ...headers, 'mcp-session-id': sessionId });
}
