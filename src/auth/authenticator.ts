import type { IncomingMessage } from 'node:http';
import type { ActivityEntry } from '../activity/activityLog.js';
import type { AppClock } from '../core/clock.js';
import { ErrorCode, ProtocolError } from '../core/errors.js';
import { SERVER_NAME } from '../protocol/serverInfo.js';
import type { BridgeToken } from './bridgeToken.js';
import { rateLimited } from './callerLimits.js';
import { scopesForLevel } from './levels.js';
import { anonymousPrincipal, type Principal, type Scope } from './principal.js';
import type { TokenRecord, TokenStore } from './tokenStore.js';
import type { UnverifiedBearers } from './unverifiedBearers.js';

const challenge = (extra = '') => ({ 'www-authenticate': `Bearer realm="${SERVER_NAME}"${extra}` });

const TOOL_SCOPES: ReadonlySet<Scope> = new Set(['tools:read', 'tools:write']);

export function principalOf(record: TokenRecord): Principal {
  return {
    kind: 'token',
    id: record.id,
    name: record.name,
    // A grant of custom tools holds the tool scopes of its level and nothing else.
    scopes: new Set(scopesForLevel(record.level).filter((scope) => !record.tools || TOOL_SCOPES.has(scope))),
    connections: record.connections === 'all' ? 'all' : new Set(record.connections),
    ...(record.tools ? { tools: new Set(record.tools) } : {}),
  };
}

export type AuthenticatorDeps = {
  /** Absent when authentication is off (`--no-auth`): every caller is the anonymous loopback principal. */
  tokens: TokenStore | undefined;
  /** The per-start token of `sluice bridge`, accepted beside the stored ones. */
  bridge: BridgeToken;
  /** The shared slow-down of tokens that do not verify. */
  unverified: UnverifiedBearers;
  clock: AppClock;
  audit(entry: ActivityEntry): void;
};

/**
 * Bearer authentication with the contract's refusals: no token `-33009` with the bare challenge (not
 * counted as a failure); unknown or revoked `-33009` `invalid_token`; expired `-33008`. A token that
 * does not verify once the shared budget is spent gets `-33010` instead; a token that verifies is
 * never refused here, whatever others have sent.
 */
export class Authenticator {
  readonly #deps: AuthenticatorDeps;

  constructor(deps: AuthenticatorDeps) {
    this.#deps = deps;
  }

  async authenticate(req: IncomingMessage): Promise<Principal> {
    const address = req.socket.remoteAddress ?? 'unknown';
    const { tokens, clock } = this.#deps;
    if (!tokens) return anonymousPrincipal(address);

    const header = req.headers.authorization;
    if (header === undefined) {
      throw new ProtocolError(ErrorCode.Unauthenticated, 'Unauthenticated: send Authorization: Bearer <token>', undefined, challenge());
    }
    const token = /^Bearer +(\S+)$/i.exec(header)?.[1] ?? '';
    const bridge = this.#deps.bridge.principalFor(token);
    if (bridge) return bridge;
    const verdict = tokens.verify(token, clock.now());
    if (verdict.ok) {
      tokens.touch(verdict.record.id, clock.now());
      return principalOf(verdict.record);
    }
    const { retryAfter, firstRefusal } = this.#deps.unverified.fail();
    if (retryAfter > 0) {
      // One row per window, however many are refused: a flood must not grow the log with it.
      if (firstRefusal) this.#deps.audit({ category: 'auth', action: 'bearer', outcome: 'rateLimited', detail: { address } });
      throw rateLimited(retryAfter, 'Too many tokens that do not verify; try again later');
    }
    this.#deps.audit({
      category: 'auth',
      action: 'bearer',
      outcome: 'denied',
      ...(verdict.record ? { tokenId: verdict.record.id, tokenName: verdict.record.name } : {}),
      detail: { reason: verdict.reason, address },
    });
    if (verdict.reason === 'expired') {
      throw new ProtocolError(
        ErrorCode.TokenExpired,
        'Token expired',
        undefined,
        challenge(', error="invalid_token", error_description="token expired"'),
      );
    }
    throw new ProtocolError(ErrorCode.Unauthenticated, 'Unauthenticated: unknown or revoked token', undefined, challenge(', error="invalid_token"'));
  }
}
