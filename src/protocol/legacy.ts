import { META_SERVER_INFO } from './era.js';
import { ErrorCode, ProtocolError, shown } from '../core/errors.js';
import { isPlainObject, type Params } from './jsonrpc.js';
import { INSTRUCTIONS, SERVER_NAME, SERVER_TITLE, SERVER_VERSION } from './serverInfo.js';
import { LEGACY_VERSIONS } from './versions.js';

/** Legacy clients cannot subscribe to resources (contract, Events rule 1). */
const LEGACY_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: false, listChanged: true },
  prompts: { listChanged: false },
  completions: {},
  logging: {},
};

export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** The protocol version `initialize` asks for, if it is one of the two legacy revisions. */
export function initializeVersion(params: Params): string {
  const version = params.protocolVersion;
  if (typeof version !== 'string' || !(LEGACY_VERSIONS as readonly string[]).includes(version)) {
    throw new ProtocolError(ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${shown(version)}`, {
      supported: [...LEGACY_VERSIONS],
      requested: version,
    });
  }
  return version;
}

export function initializeResult(protocolVersion: string): Record<string, unknown> {
  return {
    protocolVersion,
    capabilities: LEGACY_CAPABILITIES,
    serverInfo: { name: SERVER_NAME, title: SERVER_TITLE, version: SERVER_VERSION },
    instructions: INSTRUCTIONS,
  };
}

/** Legacy results have no `resultType`, no cache hints and no `serverInfo` in `_meta`. */
export function finishLegacyResult(result: Record<string, unknown>): Record<string, unknown> {
  const { resultType: _type, ttlMs: _ttl, cacheScope: _scope, _meta, ...rest } = result;
  if (!isPlainObject(_meta)) return rest;
  const { [META_SERVER_INFO]: _info, ...meta } = _meta;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}
