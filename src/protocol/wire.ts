import { fixedCacheHint, isCacheableMethod } from './cacheHints.js';
import { META_SERVER_INFO } from './era.js';
import { ErrorCode, ProtocolError } from '../core/errors.js';
import { isPlainObject, type Params, type RequestId } from './jsonrpc.js';
import { serverInfo } from './serverInfo.js';

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: RequestId; result: Record<string, unknown> }
  | { jsonrpc: '2.0'; id: RequestId | null; error: { code: number; message: string; data?: unknown } };

/**
 * The last step of every modern result: `resultType`, `serverInfo` in `_meta`, and cache hints only where
 * the contract's table puts them (never on a call that carries `requestState` or `inputResponses`).
 */
export function finishModernResult(
  method: string,
  params: Params,
  result: Record<string, unknown>,
): Record<string, unknown> {
  const { ttlMs, cacheScope, ...rest } = result;
  const meta = isPlainObject(rest._meta) ? rest._meta : {};
  const finished: Record<string, unknown> = {
    ...rest,
    resultType: rest.resultType ?? 'complete',
    _meta: { ...meta, [META_SERVER_INFO]: meta[META_SERVER_INFO] ?? serverInfo },
  };
  const roundTrip = 'requestState' in params || 'inputResponses' in params;
  if (!isCacheableMethod(method) || roundTrip || finished.resultType !== 'complete') return finished;
  const hint = fixedCacheHint(method) ?? (typeof ttlMs === 'number' ? { ttlMs, cacheScope } : undefined);
  return hint ? { ...finished, ...hint } : finished;
}

export function resultResponse(id: RequestId, result: Record<string, unknown>): JsonRpcResponse {
  return { jsonrpc: '2.0', id, result };
}

/** The one place an error becomes a JSON-RPC error object; anything untyped is a bare `-32603`. */
export function errorResponse(
  id: RequestId | null,
  error: unknown,
): { status: number; headers: Record<string, string>; body: JsonRpcResponse } {
  const typed =
    error instanceof ProtocolError ? error : new ProtocolError(ErrorCode.InternalError, 'Internal error');
  return {
    status: typed.httpStatus,
    headers: typed.headers,
    body: {
      jsonrpc: '2.0',
      id,
      error: {
        code: typed.code,
        message: typed.message,
        ...(typed.data !== undefined ? { data: typed.data } : {}),
      },
    },
  };
}
