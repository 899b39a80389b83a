import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ActivityEntry } from '../activity/activityLog.js';
import type { FailureLockout } from '../auth/failureLockout.js';
import type { ExchangeOutcome, PairingService } from '../runtime/pairingService.js';
import { isValidVerifier } from '../pairing/pkce.js';
import { isPlainObject } from '../protocol/jsonrpc.js';
import { isJsonContentType } from '../protocol/headerMirror.js';
import { readBody } from './body.js';
import { sendHttpError, sendJson } from './respond.js';
import { EXCHANGE } from '../core/contract.js';

export type ExchangeDeps = {
  pairing: PairingService;
  lockout: FailureLockout;
  audit(entry: ActivityEntry): void;
};

type Failure = Extract<ExchangeOutcome, { status: 403 | 404 | 410 }> | { status: 400; error: string; description: string };

const malformed = (description: string): Failure => ({ status: 400, error: 'invalid_request', description });

async function parseRequest(req: IncomingMessage): Promise<{ code: string; verifier: string } | Failure> {
  if (!isJsonContentType(req.headers['content-type'])) return malformed('Content-Type must be application/json');
  let body: unknown;
  try {
    body = JSON.parse(await readBody(req, EXCHANGE.maxBodyBytes));
  } catch {
    return malformed('the body must be a JSON object of at most 8 KB');
  }
  if (!isPlainObject(body)) return malformed('the body must be a JSON object');
  const { code, code_verifier: verifier } = body;
  if (typeof code !== 'string' || code.length === 0) return malformed('code is missing');
  if (typeof verifier !== 'string' || verifier.length === 0) return malformed('code_verifier is missing');
  if (Buffer.byteLength(code) > EXCHANGE.maxFieldBytes || Buffer.byteLength(verifier) > EXCHANGE.maxFieldBytes) {
    return malformed('a field is over 1,024 bytes');
  }
  if (!isValidVerifier(verifier)) return malformed('code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~');
  return { code, verifier };
}

/**
 * `POST /v1/integrations/exchange`: the one-time code plus its PKCE verifier buys the token. Every
 * failure is logged (`auth` / `denied`) and counted against the address; the fifth in five minutes
 * locks it out for fifteen (429 with `Retry-After`).
 */
export async function handleExchange(req: IncomingMessage, res: ServerResponse, deps: ExchangeDeps): Promise<void> {
  const address = req.socket.remoteAddress ?? 'unknown';
  const retryAfter = await deps.lockout.retryAfter(address);
  if (retryAfter > 0) {
    req.resume();
    deps.audit({ category: 'auth', action: 'pairing.exchange', outcome: 'denied', detail: { reason: 'locked_out', address } });
    sendHttpError(res, 429, 'too_many_attempts', 'too many failed exchanges from this address', {
      'retry-after': String(retryAfter),
    });
    return;
  }
  const parsed = await parseRequest(req);
  const outcome = 'status' in parsed ? parsed : deps.pairing.exchange(parsed.code, parsed.verifier);
  if (outcome.status === 200) {
    await deps.lockout.clear(address);
    deps.audit({ category: 'auth', action: 'pairing.exchange', outcome: 'success' });
    sendJson(res, 200, { token: outcome.token });
    return;
  }
  await deps.lockout.fail(address);
  deps.audit({
    category: 'auth',
    action: 'pairing.exchange',
    outcome: 'denied',
    detail: { status: outcome.status, reason: outcome.error, address },
  });
  sendHttpError(res, outcome.status, outcome.error, outcome.description);
}
