import type { SavedConnection } from '../db/connections/savedConnections.js';
import { ErrorCode, ProtocolError } from '../core/errors.js';
import { SERVER_NAME } from '../protocol/serverInfo.js';
import type { Principal, Scope } from './principal.js';

export function forbidden(message: string, requiredScopes?: Scope[]): ProtocolError {
  return new ProtocolError(
    ErrorCode.Forbidden,
    message,
    requiredScopes ? { requiredScopes } : undefined,
    requiredScopes
      ? {
          'www-authenticate': `Bearer realm="${SERVER_NAME}", error="insufficient_scope", scope="${requiredScopes.join(' ')}"`,
        }
      : {},
  );
}

/** `-33007` with `data.requiredScopes` unless the principal holds every scope named. */
export function requireScopes(principal: Principal, scopes: Scope[]): void {
  if (scopes.every((s) => principal.scopes.has(s))) return;
  throw forbidden(`Forbidden: this request needs the scopes ${scopes.join(', ')}`, scopes);
}

/** A connection is usable when its own settings allow AI access and the principal's allowlist names it. */
export function canUseConnection(principal: Principal, connection: SavedConnection): boolean {
  if (connection.externalAccess === 'blocked' || connection.aiPolicy === 'never') return false;
  return principal.connections === 'all' || principal.connections.has(connection.id);
}

/** Writes need the connection's own external access to allow them: the lower of token and connection wins. */
export function requireWritable(connection: SavedConnection): void {
  if (connection.externalAccess !== 'readWrite') {
    throw forbidden(`Forbidden: connection "${connection.id}" lets AI clients read only`);
  }
}
