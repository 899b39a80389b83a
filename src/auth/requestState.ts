import { createHash, randomBytes } from 'node:crypto';
import stableStringify from 'fast-json-stable-stringify';
import { invalidParams } from '../core/errors.js';
import { REQUESTS } from '../core/contract.js';

/** What a `requestState` is bound to: the caller, the method, and the exact parameters of the call. */
export type RequestBinding = { principalId: string; method: string; params: Record<string, unknown> };

/** SHA-256 of the canonical JSON of the parameters, without the round-trip fields and `_meta`. */
export function parametersDigest(params: Record<string, unknown>): string {
  const { _meta, requestState, inputResponses, ...rest } = params;
  return createHash('sha256').update(stableStringify(rest)).digest('base64url');
}

const invalidState = () => invalidParams('Invalid requestState: it is expired, altered, or not for this call');

/** jose is loaded on the first round trip, not at start (it is a tenth of the start-up time). */
const jose = () => import('jose');

/**
 * Signs and checks the `requestState` of an `input_required` round trip: a JWS (HS256) under a key made
 * at start, valid five minutes, bound to the token, the method and the parameters' digest, and spent by
 * its first answer: each carries a random id, remembered until the state would expire.
 */
export class RequestStateSigner {
  readonly #key: Uint8Array;
  readonly #now: () => number;
  /** Ids of spent states → when they expire (ms); in the order they were spent. */
  readonly #spent = new Map<string, number>();

  readonly #maxSpent: number;

  constructor(now: () => number, key: Uint8Array = randomBytes(32), maxSpent = REQUESTS.maxSpentStates) {
    this.#now = now;
    this.#key = key;
    this.#maxSpent = maxSpent;
  }

  async sign(binding: RequestBinding): Promise<string> {
    const issuedAt = Math.floor(this.#now() / 1000);
    const { SignJWT } = await jose();
    return new SignJWT({ m: binding.method, d: parametersDigest(binding.params) })
      .setProtectedHeader({ alg: 'HS256' })
      .setJti(randomBytes(16).toString('base64url'))
      .setSubject(binding.principalId)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + REQUESTS.requestStateTtlMs / 1000)
      .sign(this.#key);
  }

  /** Resolves when `state` was issued by this server for exactly this call and is unspent; otherwise `-32602`. */
  async verify(state: unknown, binding: RequestBinding): Promise<void> {
    await this.#payload(state, binding);
  }

  /**
   * As `verify`, and spends the state: any later answer carrying it is `-32602`, so a consented
   * statement runs at most once. Checked and spent in one turn, so two answers racing cannot both pass.
   */
  async spend(state: unknown, binding: RequestBinding): Promise<void> {
    const { jti, exp } = await this.#payload(state, binding);
    const now = this.#now();
    this.#forgetExpired(now);
    if (this.#spent.size >= this.#maxSpent) throw invalidParams('Too many approvals in five minutes; ask again later');
    this.#spent.set(jti, exp * 1000);
  }

  async #payload(state: unknown, binding: RequestBinding): Promise<{ jti: string; exp: number }> {
    if (typeof state !== 'string' || state.length > 4096) throw invalidState();
    let payload: Record<string, unknown>;
    const { jwtVerify } = await jose();
    try {
      ({ payload } = await jwtVerify(state, this.#key, { algorithms: ['HS256'], currentDate: new Date(this.#now()) }));
    } catch {
      throw invalidState();
    }
    const { jti, exp } = payload;
    const bound =
      payload.sub === binding.principalId && payload.m === binding.method && payload.d === parametersDigest(binding.params);
    if (!bound || typeof jti !== 'string' || typeof exp !== 'number' || this.#spent.has(jti)) throw invalidState();
    return { jti, exp };
  }

  #forgetExpired(now: number): void {
    for (const [jti, expiresAt] of this.#spent) {
      if (expiresAt <= now) this.#spent.delete(jti);
      else if (this.#spent.size < this.#maxSpent) return;
    }
  }
}
