import { ErrorCode, invalidParams, ProtocolError } from '../core/errors.js';
import { isPlainObject, type Params } from './jsonrpc.js';
import { MODERN_VERSION, SUPPORTED_VERSIONS } from './versions.js';

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

export type ClientInfo = { name?: string; title?: string; version?: string };
export type TraceContext = { traceparent?: string; tracestate?: string; baggage?: string };

/** What a handler needs to know of the request's `_meta`, in either era. */
export type RequestMeta = {
  clientCapabilities: Record<string, unknown>;
  clientInfo: ClientInfo | undefined;
  progressToken: string | number | undefined;
  trace: TraceContext;
};

export type ModernMeta = RequestMeta & { era: 'modern'; protocolVersion: string };

export type RequestEra = ModernMeta | { era: 'legacy' };

const TRACE_KEYS = ['traceparent', 'tracestate', 'baggage'] as const;

function readTrace(meta: Record<string, unknown>): TraceContext {
  const trace: TraceContext = {};
  for (const key of TRACE_KEYS) {
    const value = meta[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw invalidParams(`_meta.${key} must be a string`);
    trace[key] = value;
  }
  return trace;
}

export function readClientInfo(value: unknown, where = `_meta["${META_CLIENT_INFO}"]`): ClientInfo | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) throw invalidParams(`${where} must be an object`);
  const info: ClientInfo = {};
  for (const key of ['name', 'title', 'version'] as const) {
    const field = value[key];
    if (field === undefined) continue;
    if (typeof field !== 'string')
      throw invalidParams(`_meta["${META_CLIENT_INFO}"].${key} must be a string`);
    info[key] = field;
  }
  return info;
}

function readProgressToken(meta: Record<string, unknown>): string | number | undefined {
  const { progressToken } = meta;
  if (progressToken !== undefined && typeof progressToken !== 'string' && !Number.isSafeInteger(progressToken)) {
    throw invalidParams('_meta.progressToken must be a string or an integer');
  }
  return progressToken as string | number | undefined;
}

/** A legacy request's `_meta`: its progress token and trace context; the rest comes from its session. */
export function readLegacyMeta(params: Params, clientInfo: ClientInfo | undefined): RequestMeta {
  const meta = isPlainObject(params._meta) ? params._meta : {};
  return { clientCapabilities: {}, clientInfo, progressToken: readProgressToken(meta), trace: readTrace(meta) };
}

/** A modern request's version must be the modern one; checked after the header mirror. */
export function assertModernVersion(version: string): void {
  if (version === MODERN_VERSION) return;
  const hint = SUPPORTED_VERSIONS.includes(version) ? ' in _meta; legacy versions are negotiated with initialize' : '';
  throw new ProtocolError(ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${version}${hint}`, {
    supported: [...SUPPORTED_VERSIONS],
    requested: version,
  });
}

/**
 * Reads the era of a request from `params._meta`: a request without a protocol version there is legacy;
 * otherwise every `_meta` rule of the modern envelope applies (whether the version is supported is checked
 * after the header mirror, by `assertModernVersion`).
 */
export function readEra(params: Params): RequestEra {
  const meta = params._meta;
  if (meta !== undefined && !isPlainObject(meta)) throw invalidParams('params._meta must be an object');
  if (meta === undefined || !(META_PROTOCOL_VERSION in meta)) return { era: 'legacy' };

  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== 'string' || version.length === 0) {
    throw invalidParams(`_meta["${META_PROTOCOL_VERSION}"] must be a non-empty string`);
  }
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  if (!isPlainObject(capabilities)) {
    throw invalidParams(`_meta["${META_CLIENT_CAPABILITIES}"] is required and must be an object`);
  }
  return {
    era: 'modern',
    protocolVersion: version,
    clientCapabilities: capabilities,
    clientInfo: readClientInfo(meta[META_CLIENT_INFO]),
    progressToken: readProgressToken(meta),
    trace: readTrace(meta),
  };
}
