/**
 * The one typed error family. `ProtocolError` becomes a JSON-RPC error object with the HTTP status the
 * contract pairs with its code; `ToolError` becomes a successful tool result with `isError: true`.
 * Both are mapped to the wire in exactly one place (`src/protocol/wire.ts`).
 */

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  HeaderMismatch: -32020,
  MissingClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  ServerUnavailable: -33000,
  SessionNotFound: -33001,
  RequestCancelled: -33002,
  RequestTimeout: -33003,
  PayloadTooLarge: -33005,
  ServerDisabled: -33006,
  Forbidden: -33007,
  TokenExpired: -33008,
  Unauthenticated: -33009,
  RateLimited: -33010,
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const httpStatusByCode: Record<ErrorCode, number> = {
  [ErrorCode.ParseError]: 400,
  [ErrorCode.InvalidRequest]: 400,
  [ErrorCode.MethodNotFound]: 404,
  [ErrorCode.InvalidParams]: 400,
  [ErrorCode.InternalError]: 500,
  [ErrorCode.HeaderMismatch]: 400,
  [ErrorCode.MissingClientCapability]: 400,
  [ErrorCode.UnsupportedProtocolVersion]: 400,
  [ErrorCode.ServerUnavailable]: 503,
  [ErrorCode.SessionNotFound]: 404,
  [ErrorCode.RequestCancelled]: 200,
  [ErrorCode.RequestTimeout]: 200,
  [ErrorCode.PayloadTooLarge]: 413,
  [ErrorCode.ServerDisabled]: 503,
  [ErrorCode.Forbidden]: 403,
  [ErrorCode.TokenExpired]: 401,
  [ErrorCode.Unauthenticated]: 401,
  [ErrorCode.RateLimited]: 429,
};

export class ProtocolError extends Error {
  readonly code: ErrorCode;
  readonly data: Record<string, unknown> | undefined;
  /** Extra response headers the refusal needs (`WWW-Authenticate`, `Retry-After`). */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    data?: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ProtocolError';
    this.code = code;
    this.data = data;
    this.headers = headers;
  }

  get httpStatus(): number {
    return httpStatusByCode[this.code];
  }
}

export const invalidParams = (message: string, data?: Record<string, unknown>): ProtocolError =>
  new ProtocolError(ErrorCode.InvalidParams, message, data);

export const headerMismatch = (message: string): ProtocolError =>
  new ProtocolError(ErrorCode.HeaderMismatch, message);

export const toolErrorCodes = [
  'invalid_argument',
  'not_connected',
  'not_found',
  'denied',
  'timeout',
  'unsupported',
  'query_failed',
  'user_cancelled',
  'internal_failure',
] as const;

export type ToolErrorCode = (typeof toolErrorCodes)[number];

export class ToolError extends Error {
  readonly code: ToolErrorCode;
  /** The database's own code for the failure (SQLSTATE, error number), the part the activity log keeps. */
  readonly engineCode: string | undefined;

  constructor(code: ToolErrorCode, message: string, engineCode?: string) {
    super(message);
    this.name = 'ToolError';
    this.code = code;
    this.engineCode = engineCode;
  }
}

/** A client's value as it may appear in a message: text as it is, anything else as JSON (never throws). */
export function shown(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}
