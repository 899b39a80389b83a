import { createHash, randomBytes } from 'node:crypto';
import stableStringify from 'fast-json-stable-stringify';
import { invalidParams } from '../protocol/errors.js';

export const REQUEST_STATE_TTL_MS = 5 * 60_000;

/** What a `requestState` is bound to: the caller, the method, and the exact parameters of the call. */
export type RequestBinding = { principalId: string; method: string; params: Record<string, unknown> };

/** SHA-256 of the canonical JSON of the parameters, without the round-trip fields and `_meta`. */
export function parametersDigest(params: Record<string, unknown>): string {
  const { _meta, requestState, inputResponses, ...rest } = params;
  return createHash('sha256').update(stableStringify(rest)).digest('base64url');
}

const invalidState = () => invalidParams('Invalid requestState: it is expired, altered, or not for this call');

/**
 * Signs and checks the `requestState` of an `input_required` round trip: a JWS (HS256) under a key made
 * at start, valid five minutes, bound to the token, the method and the parameters' digest.
 */
/** jose is loaded on the first round trip, not at start (it is a tenth of the start-up time). */
const jose = () => import('jose');

export class RequestStateSigner {
  readonly #key: Uint8Array;
  readonly #now: () => number;

  constructor(now: () => number, key: Uint8Array = randomBytes(32)) {
    this.#now = now;
    this.#key = key;
  }

  async sign(binding: RequestBinding): Promise<string> {
    const issuedAt = Math.floor(this.#now() / 1000);
    const { SignJWT } = await jose();
    return new SignJWT({ m: binding.method, d: parametersDigest(binding.params) })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(binding.principalId)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + REQUEST_STATE_TTL_MS / 1000)
      .sign(this.#key);
  }

  /** Resolves when `state` was issued by this server for exactly this call; otherwise `-32602`. */
  async verify(state: unknown, binding: RequestBinding): Promise<void> {
    if (typeof state !== 'string' || state.length > 4096) throw invalidState();
    let payload: Record<string, unknown>;
    const { jwtVerify } = await jose();
    try {
      ({ payload } = await jwtVerify(state, this.#key, { algorithms: ['HS256'], currentDate: new Date(this.#now()) }));
    } catch {
      throw invalidState();
    }
    const bound =
      payload.sub === binding.principalId && payload.m === binding.method && payload.d === parametersDigest(binding.params);
    if (!bound) throw invalidState();
  }
}
