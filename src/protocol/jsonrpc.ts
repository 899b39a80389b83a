import { ErrorCode, ProtocolError } from '../core/errors.js';

export type RequestId = string | number;
export type Params = Record<string, unknown>;

export type IncomingMessage =
  | { kind: 'request'; id: RequestId; method: string; params: Params }
  | { kind: 'notification'; method: string; params: Params };

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const invalidRequest = (message: string) => new ProtocolError(ErrorCode.InvalidRequest, message);

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ProtocolError(ErrorCode.ParseError, 'Parse error: the body is not JSON');
  }
}

const isRequestId = (id: unknown): id is RequestId =>
  typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));

/** The id of a message, when it has a usable one: an invalid envelope still gets its id echoed. */
export function requestIdOf(value: unknown): RequestId | null {
  return isPlainObject(value) && isRequestId(value.id) ? value.id : null;
}

/** Validates a JSON-RPC 2.0 envelope; batches and responses sent to the server are invalid. */
export function parseMessage(value: unknown): IncomingMessage {
  if (!isPlainObject(value)) throw invalidRequest('Invalid request: the body must be one JSON-RPC object');
  if (value.jsonrpc !== '2.0') throw invalidRequest('Invalid request: jsonrpc must be "2.0"');
  if (!('method' in value)) {
    if ('result' in value || 'error' in value) {
      throw invalidRequest('Invalid request: the server does not accept JSON-RPC responses');
    }
    throw invalidRequest('Invalid request: method is missing');
  }
  const { method, params = {} } = value;
  if (typeof method !== 'string' || method.length === 0) {
    throw invalidRequest('Invalid request: method must be a non-empty string');
  }
  if (!isPlainObject(params)) throw invalidRequest('Invalid request: params must be an object');
  if (!('id' in value)) return { kind: 'notification', method, params };
  const { id } = value;
  if (!isRequestId(id)) throw invalidRequest('Invalid request: id must be a string or an integer');
  return { kind: 'request', id, method, params };
}
