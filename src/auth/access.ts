import type { SavedConnection } from '../db/connections/savedConnections.js';
import { ErrorCode, ProtocolError } from '../core/errors.js';
import { SERVER_NAME } from '../protocol/serverInfo.js';
import type { Principal, Scope } from './principal.js';

export function forbidden(message: string, requiredScopes?: Scope[], grantedTools?: ReadonlySet<string>): ProtocolError {
  const data = { ...(requiredScopes ? { requiredScopes } : {}), ...(grantedTools ? { grantedTools: [...grantedTools] } : {}) };
  return new ProtocolError(
    ErrorCode.Forbidden,
    message,
    Object.keys(data).length > 0 ? data : undefined,
    requiredScopes
      ? {
          'www-authenticate': `Bearer realm="${SERVER_NAME}", error="insufficient_scope", scope="${requiredScopes.join(' ')}"`,
        }
      : {},
  );
}

/**
 * `-33007` with `data.requiredScopes` unless the principal holds every scope named; a principal limited
 * to custom tools is told which (`data.grantedTools`).
 */
export function requireScopes(principal: Principal, scopes: Scope[]): void {
  if (scopes.every((s) => principal.scopes.has(s))) return;
  const limited = principal.tools ? `; this token may call only the tools ${[...principal.tools].join(', ')}` : '';
  throw forbidden(`Forbidden: this request needs the scopes ${scopes.join(', ')}${limited}`, scopes, principal.tools);
}

/** `-33007` naming the tools the principal is limited to, for a tool outside its grant. */
export function outsideToolGrant(principal: Principal, name: string): ProtocolError {
  return forbidden(`Forbidden: this token may call only the tools ${[...(principal.tools ?? [])].join(', ')}, not ${name}`, undefined, principal.tools);
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
