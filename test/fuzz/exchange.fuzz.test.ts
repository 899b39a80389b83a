/**
 * Fuzzing POST /v1/integrations/exchange (issue 9, item 2; wire-contract.md "Endpoint: POST
 * /v1/integrations/exchange", "Pairing code", "Exchange endpoint errors", "Limits"; decisions.md "Rate
 * limits and lockouts"). Bodies: arbitrary JSON, bytes and text, and objects whose `code` (a pending,
 * expired, burned or unknown code, or no string at all) and `code_verifier` (of every length, alphabet
 * and type, over 1,024 bytes) are fuzzed, with fuzzed Content-Types.
 *
 * Every answer is one of 400, 403, 404, 410, 429 as `{error, error_description}` JSON (never 200 for
 * random input, never 500, no leaked internals, never the verifier repeated), predicted exactly by a
 * model of the contract: a malformed body is 400; a well-formed one is 403 for a pending code (which it
 * burns), 410 for an expired one, 404 otherwise; and every failure is logged auth/denied and counted.
 *
 * The lockout (five failures from one address within five minutes lock it out for fifteen, 429 with
 * Retry-After) runs on `Date`, so `Date` alone is faked (as in test/e2e/exchange.test.ts) and each case
 * first moves it by 0 s, 301 s (a new five-minute window) or 901 s (past any lockout). The model predicts
 * each 429 and its Retry-After; most cases still reach the validation logic. Pairing itself runs on the
 * app's simulated clock.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { callbackFields, pairingLink, START_TIME } from '../helpers/pairing.js';
import { challengeFor, createVerifier } from '../../src/pairing/pkce.js';
import { jsonish, nonString, text } from './arbitraries.js';
import { type FuzzApp, settle, startFuzzApp } from './fuzzApp.js';
import { CaseTally, FUZZ_RUNS, fuzzParameters, timeoutFor } from './fuzzBudget.js';
import type { WireReply } from './fuzzHttp.js';
import { isPlainObject } from './wireRules.js';

const EXCHANGE_PATH = '/v1/integrations/exchange';
const WINDOW_MS = 300_000;
const LOCKOUT_MS = 900_000;
const CODE_LIFETIME_MS = 300_000;
/** The refusal each status carries (exchangeEndpoint.ts). */
const ERROR_OF_STATUS = new Map([
  [400, 'invalid_request'],
  [403, 'invalid_grant'],
  [404, 'not_found'],
  [410, 'expired_code'],
  [429, 'too_many_attempts'],
]);

let f: FuzzApp;
const clock = new SimulatedClock();
const tally = new CaseTally('exchange');
/** The newest activity row already looked at. */
let lastSeq = 0;

beforeAll(async () => {
  clock.set(START_TIME);
  f = await startFuzzApp({ clock });
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
});
afterAll(async () => {
  vi.useRealTimers();
  tally.print();
  await f?.dispose();
});

/**
 * Opens a pairing link, approves it, and returns the code delivered to the client and its verifier.
 * (Minting writes the token file: codes are reused across cases while their state allows.)
 */
function pairAndApprove(): { code: string; verifier: string } {
  const verifier = createVerifier();
  const opened = f.app.pairing.openLink(pairingLink({ challenge: challengeFor(verifier) }));
  if (!opened.ok) throw new Error(opened.reason);
  const approved = f.app.pairing.approve(opened.sheet.id);
  if (!approved.ok) throw new Error(approved.reason);
  return { code: callbackFields(f.delivered.at(-1)!).code!, verifier };
}

// ---------------------------------------------------------------------------------------------------
// The model: what the contract says each request gets.

type CodeKind = 'pending' | 'expired' | 'burned' | 'unknown';
/** Every code issued, with when (on the app's clock) and whether a 403 burned it. */
const issued: { code: string; issuedAt: number; burned: boolean }[] = [];
const TOMBSTONE_MS = 600_000;

/** The contract's states of a code: pending for 5 minutes, then expired (410) while its tombstone lives (decisions.md: 10 minutes), then gone. */
function stateOf(c: (typeof issued)[number]): 'pending' | 'expired' | 'burned' | 'gone' {
  if (c.burned) return 'burned';
  const age = clock.now() - c.issuedAt;
  return age < CODE_LIFETIME_MS ? 'pending' : age < CODE_LIFETIME_MS + TOMBSTONE_MS ? 'expired' : 'gone';
}

/** A real code in the state asked for (issuing one, and ageing it past its lifetime, when none is at hand). */
function codeIn(kind: CodeKind): { real: string; kind: CodeKind } {
  const found = [...issued].reverse().find((c) => stateOf(c) === kind || (kind === 'burned' && stateOf(c) === 'gone'));
  if (found) return { real: found.code, kind };
  if (kind === 'burned') return { real: '', kind: 'unknown' };
  const { code } = pairAndApprove();
  issued.push({ code, issuedAt: clock.now(), burned: false });
  // Only the newest codes are reused; the search stays short however long the run.
  if (issued.length > 64) issued.splice(0, issued.length - 64);
  if (kind === 'expired') clock.increment(CODE_LIFETIME_MS);
  return { real: code, kind };
}

/** The lockout as the contract states it, on the faked `Date`. */
const lockout = { lockedUntil: 0, at: Number.NaN, failures: 0 };
function lockedFor(now: number): number {
  return now < lockout.lockedUntil ? Math.ceil((lockout.lockedUntil - now) / 1000) : 0;
}
function recordFailure(now: number): void {
  // Date only moves between cases, by 0 or more than 300 s: failures either share an instant or are
  // more than five minutes apart.
  if (lockout.at !== now) {
    lockout.at = now;
    lockout.failures = 0;
  }
  lockout.failures += 1;
  if (lockout.failures >= 5) {
    lockout.lockedUntil = now + LOCKOUT_MS;
    lockout.failures = 0;
  }
}

const UNRESERVED = /^[A-Za-z0-9\-._~]{43,128}$/;

/** The statuses the contract allows for a body (several where it leaves the order of checks or a limit open). */
function expectedStatuses(body: string | Uint8Array, contentType: Verdict, kind: CodeKind): number[] {
  const bytes = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  let value: unknown;
  let parsed = true;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(typeof body === 'string' ? Buffer.from(body) : body));
  } catch {
    parsed = false;
  }
  let verdict: number[];
  if (!parsed || !isPlainObject(value)) verdict = [400];
  else {
    const { code, code_verifier: verifier } = value;
    if (typeof code !== 'string' || typeof verifier !== 'string' || verifier === '') verdict = [400];
    // An empty code is no code ("missing"), or an unknown one.
    else if (code === '') verdict = [400, 404];
    else if (Buffer.byteLength(code) > 1024 || Buffer.byteLength(verifier) > 1024 || !UNRESERVED.test(verifier)) verdict = [400];
    else verdict = kind === 'pending' ? [403] : kind === 'expired' ? [410] : [404];
  }
  // The contract gives no body limit for the exchange: a big body may be refused as malformed.
  if (bytes > 8 * 1024 && !verdict.includes(400)) verdict = [...verdict, 400];
  if (contentType === 'mismatch') return [400];
  if (contentType === 'unknown' && !verdict.includes(400)) return [...verdict, 400];
  return verdict;
}

// ---------------------------------------------------------------------------------------------------
// Arbitraries.

type Verdict = 'match' | 'mismatch' | 'unknown';
const unreservedChar = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~'.split(''));
const reservedChar = fc.constantFrom(...'+/=!*\'();:@&$,?#[] %"\\<>^`{|}é\u0000\t'.split(''));

/** What to put in `code_verifier`. */
const verifierArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 12, arbitrary: fc.string({ unit: unreservedChar, minLength: 43, maxLength: 128 }) },
  { weight: 1, arbitrary: fc.string({ unit: unreservedChar, minLength: 1, maxLength: 42 }) },
  { weight: 1, arbitrary: fc.string({ unit: unreservedChar, minLength: 129, maxLength: 300 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1025, max: 3000 }).map((n) => 'a'.repeat(n)) },
  { weight: 1, arbitrary: fc.constantFrom('é'.repeat(513), '😀'.repeat(300), 'v'.repeat(1024), 'v'.repeat(1025)) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.string({ unit: unreservedChar, minLength: 43, maxLength: 100 }), reservedChar, fc.nat())
      .map(([v, bad, at]) => `${v.slice(0, at % v.length)}${bad}${v.slice(at % v.length)}`),
  },
  { weight: 1, arbitrary: text(60) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', null) },
  { weight: 1, arbitrary: nonString },
);

/** The code to send, as a kind (resolved against the app per case) or a raw value. */
type CodeChoice = { kind: CodeKind; make: (real: string) => unknown };
const codeArb: fc.Arbitrary<CodeChoice> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<CodeKind>('pending', 'expired', 'burned').map((kind) => ({ kind, make: (real: string) => real })) },
  { weight: 2, arbitrary: fc.uuid().map((u) => ({ kind: 'unknown' as const, make: () => u })) },
  { weight: 1, arbitrary: fc.oneof(text(40), fc.string({ unit: unreservedChar, maxLength: 60 })).map((c) => ({ kind: 'unknown' as const, make: () => c })) },
  // A pending code, spoiled: wrapped, padded, over 1,024 bytes, upper-cased.
  {
    weight: 2,
    arbitrary: fc
      .constantFrom<[string, (c: string) => unknown]>(
        ['array', (c) => [c]],
        ['object', (c) => ({ code: c })],
        ['padded', (c) => ` ${c} `],
        ['upper', (c) => c.toUpperCase()],
        ['over 1,024 bytes', (c) => c + 'a'.repeat(1025 - c.length)],
        ['1,026 bytes in 513 characters', () => 'é'.repeat(513)],
        ['exactly 1,024 bytes', (c) => c + 'a'.repeat(1024 - c.length)],
      )
      // A pending code is made for it; what is sent is no longer that code (404, or 400 when malformed).
      .map(([, make]) => ({ kind: 'pending' as const, make })),
  },
  { weight: 1, arbitrary: nonString.map((v) => ({ kind: 'unknown' as const, make: () => v })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'unknown' as const, make: () => '' }) },
);

const ABSENT = Symbol('absent');
type BodyChoice = { label: string; build: (code: unknown) => string | Uint8Array; verifier?: unknown };

const bodyArb: fc.Arbitrary<BodyChoice> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .record({
        verifier: fc.oneof({ weight: 12, arbitrary: verifierArb }, { weight: 1, arbitrary: fc.constant<unknown>(ABSENT) }),
        drop: fc.constantFrom('none', 'none', 'none', 'none', 'none', 'none', 'code'),
        extra: fc.dictionary(fc.constantFrom('state', 'client_id', 'grant_type', 'code_challenge', '__proto__', 'Code', 'x'), jsonish(1), { maxKeys: 2 }),
        pad: fc.oneof({ weight: 20, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 8 * 1024, max: 12 * 1024 }) }),
      })
      .map(({ verifier, drop, extra, pad }) => ({
        label: 'an exchange object',
        verifier,
        build: (code: unknown) => {
          const body: Record<string, unknown> = { ...extra };
          if (drop !== 'code') body.code = code;
          if (verifier !== ABSENT) body.code_verifier = verifier;
          if (pad > 0) body.padding = 'p'.repeat(pad);
          return JSON.stringify(body);
        },
      })),
  },
  { weight: 1, arbitrary: fc.oneof(fc.jsonValue(), jsonish(3)).map((v) => ({ label: 'a JSON value', build: () => JSON.stringify(v) })) },
  { weight: 1, arbitrary: fc.oneof(fc.uint8Array({ maxLength: 100 }), text(100)).map((b) => ({ label: 'bytes or text', build: () => b })) },
);

const contentTypeArb: fc.Arbitrary<{ value: string | undefined; verdict: Verdict }> = fc.oneof(
  { weight: 16, arbitrary: fc.constant({ value: 'application/json', verdict: 'match' as Verdict }) },
  { weight: 2, arbitrary: fc.constantFrom('application/json; charset=utf-8', 'Application/JSON', 'APPLICATION/JSON ; charset=UTF-8').map((value) => ({ value, verdict: 'match' as Verdict })) },
  // The contract asks for application/json; whether another +json type passes is not said.
  { weight: 1, arbitrary: fc.constantFrom('application/vnd.api+json', 'application/merge-patch+json', 'text/json').map((value) => ({ value, verdict: 'unknown' as Verdict })) },
  { weight: 2, arbitrary: fc.constantFrom(undefined, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', '', 'application/jsonp', '*/*').map((value) => ({ value, verdict: 'mismatch' as Verdict })) },
);

/** How far `Date` moves before the case: not at all, into a new five-minute window, or past any lockout. */
const dateStepArb = fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.constant(WINDOW_MS + 1_000) }, { weight: 2, arbitrary: fc.constant(LOCKOUT_MS + 1_000) });

/** The checks on every answer of the exchange endpoint. */
function expectExchangeAnswer(reply: WireReply, verifier: unknown): void {
  expect(reply.status, 'never 500').not.toBe(500);
  expect(reply.status, 'never 200 for random input').not.toBe(200);
  expect([...ERROR_OF_STATUS.keys()], `an exchange failure status: ${reply.text}`).toContain(reply.status);
  expect(reply.headers['content-type'] ?? '').toMatch(/^application\/json/);
  const body = JSON.parse(reply.text) as unknown;
  expect(isPlainObject(body) && Object.keys(body).sort().join(','), reply.text).toBe('error,error_description');
  const { error, error_description: description } = body as { error: unknown; error_description: unknown };
  expect(error).toBe(ERROR_OF_STATUS.get(reply.status));
  expect(typeof description).toBe('string');
  expect(reply.text).not.toMatch(/ {4}at |\/src\/|\.ts:|node:internal/);
  if (typeof verifier === 'string' && verifier.length >= 8) expect(reply.text, 'the answer never repeats the verifier').not.toContain(verifier);
  if (reply.status === 429) expect(reply.headers['retry-after'] ?? '').toMatch(/^[1-9][0-9]*$/);
}

describe('exchange fuzzing: every answer is the contract’s failure, predicted by its model', () => {
  it(
    'fuzzed bodies and Content-Types, pending/expired/burned/unknown codes, and the lockout',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          bodyArb,
          codeArb,
          contentTypeArb,
          dateStepArb,
          tally.count('exchange bodies', async (bodyChoice, codeChoice, contentType, step) => {
            vi.setSystemTime(Date.now() + step);
            const now = Date.now();
            const resolved = codeChoice.kind === 'unknown' ? { real: '', kind: codeChoice.kind } : codeIn(codeChoice.kind);
            const { real } = resolved;
            let { kind } = resolved;
            const code = codeChoice.make(real);
            if (code !== real) kind = 'unknown';
            const body = bodyChoice.build(code);
            const headers: Record<string, string> = {};
            if (contentType.value !== undefined) headers['Content-Type'] = contentType.value;
            const reply = await f.client.send({ path: EXCHANGE_PATH, headers, body });
            tally.outcome('statuses', String(reply.status));
            expectExchangeAnswer(reply, bodyChoice.verifier);

            const retryAfter = lockedFor(now);
            if (retryAfter > 0) {
              expect(reply.status, 'locked out: five failures within five minutes').toBe(429);
              expect(reply.headers['retry-after']).toBe(String(retryAfter));
            } else {
              const allowed = expectedStatuses(body, contentType.verdict, kind);
              expect(allowed, `${bodyChoice.label} (${kind} code, Content-Type ${String(contentType.value)}): ${typeof body === 'string' ? body.slice(0, 300) : `${body.length} bytes`}`).toContain(reply.status);
              recordFailure(now);
              const sent = issued.find((c) => c.code === real);
              if (reply.status === 403 && sent) sent.burned = true;
            }
            // Every failed exchange is logged: category auth, outcome denied.
            const rows = f.app.activity.list({ limit: 8 }).filter((r) => r.seq > lastSeq && r.action === 'pairing.exchange');
            expect(rows.map((r) => [r.category, r.action, r.outcome])).toEqual([['auth', 'pairing.exchange', 'denied']]);
            lastSeq = rows[0]!.seq;
          }),
        ),
        fuzzParameters(FUZZ_RUNS),
      );
    },
    timeoutFor(FUZZ_RUNS),
  );

  it('afterwards a real exchange still succeeds once any lockout is over, and no code or sheet is left', async () => {
    vi.setSystemTime(Date.now() + LOCKOUT_MS + 1_000);
    const { code, verifier } = pairAndApprove();
    const reply = await f.client.send({ path: EXCHANGE_PATH, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code, code_verifier: verifier }) });
    expect(reply.status).toBe(200);
    expect((JSON.parse(reply.text) as { token: string }).token).toMatch(/^sl_/);
    // Pending codes expire after five minutes, their tombstones ten minutes later (a tombstone's timer
    // starts when the simulated clock reaches the expiry, so the clock moves in two steps).
    clock.increment(CODE_LIFETIME_MS);
    clock.increment(TOMBSTONE_MS);
    expect(await settle(() => f.app.liveActors(), f.baseline)).toBe(f.baseline);
    const statuses = tally.outcomesOf('statuses');
    const counts = [...statuses.values()].reduce((a, b) => a + b, 0);
    tally.note(`reached validation (not 429): ${counts - (statuses.get('429') ?? 0)} of ${counts}`);
  });
});
