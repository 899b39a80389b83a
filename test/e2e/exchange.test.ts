/**
 * `POST /v1/integrations/exchange` over real HTTP (wire-contract.md: "Pairing code", "Endpoint: POST
 * /v1/integrations/exchange", "Exchange endpoint errors", "Limits"; decisions.md: "Pairing details",
 * "Rate limits and lockouts"). Pairing itself is driven in-process with a simulated clock; the lockout
 * counts in real time (rate-limiter-flexible reads Date.now), so its tests fake only `Date`.
 *
 * Every test gets its own app: five failures from 127.0.0.1 lock the address out of that app.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type Approved,
  authRows,
  DAY_MS,
  exchange,
  expectExchangeError,
  expectToken,
  listToolsWith,
  pairAndApprove,
  type PairingApp,
  redeem,
  startPairingApp,
  wholeActivityLog,
} from '../helpers/pairing.js';
import { rawRequest } from '../helpers/rawHttp.js';
import { expectModernSuccess, expectRpcError } from '../helpers/rpcAssertions.js';
import { mcp, type RawResponse } from '../helpers/testApp.js';
import { EXCHANGE } from '../../src/core/contract.js';

const NOT_FOUND = 'pairing code not found';
const EXPIRED = 'pairing code expired';
const LOCKOUT_SECONDS = 15 * 60;

let h: PairingApp;
beforeEach(async () => {
  h = await startPairingApp();
});
afterEach(async () => {
  vi.useRealTimers();
  await h.app.dispose();
});

/** A verifier of the right shape that is not the right one. */
const wrongVerifier = (approved: Approved) => `${approved.verifier.slice(0, -1)}${approved.verifier.endsWith('A') ? 'B' : 'A'}`;

const expectNotFound = (res: RawResponse) => expectExchangeError(res, 404, 'not_found', NOT_FOUND);
const expectExpired = (res: RawResponse) => expectExchangeError(res, 410, 'expired_code', EXPIRED);
const expectMismatch = (res: RawResponse) => {
  expectExchangeError(res, 403, 'invalid_grant');
  expect(res.json.error_description).toContain('challenge mismatch');
};
const expectMalformed = (res: RawResponse) => expectExchangeError(res, 400, 'invalid_request');

/** A 429 with a whole-second `Retry-After` between 1 and 900; returns the seconds. */
function expectLockedOut(res: RawResponse): number {
  expectExchangeError(res, 429, 'too_many_attempts');
  const retryAfter = res.headers.get('retry-after') ?? '';
  expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
  const seconds = Number(retryAfter);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(LOCKOUT_SECONDS);
  return seconds;
}

/** `n` failed exchanges (404: a code that never existed). */
async function failTimes(n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) expectNotFound(await exchange(h.app, { code: randomUUID(), code_verifier: 'v'.repeat(43) }));
}

describe('Pairing code: Code pending → Spent', () => {
  it('the right verifier gets 200 {token}; the token works on /mcp; the same code again is 404', async () => {
    const approved = pairAndApprove(h);
    const token = expectToken(await redeem(h.app, approved));

    // It is the token minted for this pairing, and nowhere in a URL.
    const verdict = h.app.tokens.verify(token, h.clock.now());
    expect(verdict.ok && verdict.record.id).toBe(approved.tokenId);
    expect(h.delivered.join(' ')).not.toContain(token);

    const tools = expectModernSuccess(await listToolsWith(h.app, token));
    expect(tools.tools.length).toBeGreaterThan(0);
    expectRpcError(await mcp(h.app, 'tools/list'), 401, -33009, 1);

    expectNotFound(await redeem(h.app, approved));
    expect(h.app.liveActors()).toBe(0);
  });

  it('a code exchanged at 299,999 ms is still good', async () => {
    const approved = pairAndApprove(h);
    h.clock.increment(299_999);
    expectToken(await redeem(h.app, approved));
  });
});

describe('Pairing code: Code pending → Deleted (wrong verifier)', () => {
  it('a wrong verifier is 403 and burns the code: the right verifier afterwards is 404', async () => {
    const approved = pairAndApprove(h);
    expectMismatch(await exchange(h.app, { code: approved.code, code_verifier: wrongVerifier(approved) }));
    expectNotFound(await redeem(h.app, approved));
    expect(h.app.liveActors()).toBe(0);
  });

  it('a verifier of 43 or 128 unreserved characters passes validation: a mismatch is 403, not 400', async () => {
    for (const verifier of ['a'.repeat(43), `${'A-._~z9'.repeat(18)}xy`]) {
      expect(verifier.length === 43 || verifier.length === 128).toBe(true);
      const approved = pairAndApprove(h);
      expectMismatch(await exchange(h.app, { code: approved.code, code_verifier: verifier }));
    }
  });
});

describe('Pairing code: Code pending → expired (tombstone) → gone', () => {
  it('after 5 minutes: 410, again 410 while the tombstone lives, 404 once it is gone 10 minutes later', async () => {
    const approved = pairAndApprove(h);
    h.clock.increment(300_000);
    expectExpired(await redeem(h.app, approved));
    expectExpired(await redeem(h.app, approved));
    h.clock.increment(599_999);
    expectExpired(await redeem(h.app, approved));
    h.clock.increment(1);
    expectNotFound(await redeem(h.app, approved));
  });

  it('an expired code is 410 even with a wrong verifier, and the tombstone is not burned by it', async () => {
    const approved = pairAndApprove(h);
    h.clock.increment(300_000);
    expectExpired(await exchange(h.app, { code: approved.code, code_verifier: wrongVerifier(approved) }));
    expectExpired(await redeem(h.app, approved));
  });
});

describe('Pairing code: Spent or unknown', () => {
  it('a code that never existed is 404', async () => {
    pairAndApprove(h);
    expectNotFound(await exchange(h.app, { code: randomUUID(), code_verifier: 'x'.repeat(43) }));
    expectNotFound(await exchange(h.app, { code: 'not-a-uuid', code_verifier: 'x'.repeat(43) }));
  });
});

describe('Exchange endpoint errors: 400', () => {
  // Each body is built around the real code and its right verifier, so a server that let the fault
  // through would answer 200.
  type Case = [name: string, body: (a: Approved) => string, headers?: Record<string, string>];
  const json = (value: unknown) => JSON.stringify(value);
  const cases: Case[] = [
    ['a body that is not JSON', (a) => `{"code":"${a.code}","code_verifier":"${a.verifier}"`],
    ['an empty body', () => ''],
    ['a JSON array', (a) => json([{ code: a.code, code_verifier: a.verifier }])],
    ['JSON null', () => 'null'],
    ['a JSON string', (a) => json(a.code)],
    ['a body without code', (a) => json({ code_verifier: a.verifier })],
    ['a body without code_verifier', (a) => json({ code: a.code })],
    ['an empty code', (a) => json({ code: '', code_verifier: a.verifier })],
    ['a code that is not a string', (a) => json({ code: 123, code_verifier: a.verifier })],
    ['a code that is an array', (a) => json({ code: [a.code], code_verifier: a.verifier })],
    ['a code_verifier that is not a string', (a) => json({ code: a.code, code_verifier: 12345 })],
    ['a code over 1,024 bytes', (a) => json({ code: `${a.code}${'a'.repeat(1025 - a.code.length)}`, code_verifier: a.verifier })],
    ['a code of 513 characters but 1,026 bytes', (a) => json({ code: 'é'.repeat(513), code_verifier: a.verifier })],
    ['a code_verifier over 1,024 bytes', (a) => json({ code: a.code, code_verifier: a.verifier.padEnd(1025, 'a') })],
    ['a verifier of 42 characters', (a) => json({ code: a.code, code_verifier: a.verifier.slice(0, 42) })],
    ['a verifier of 129 characters', (a) => json({ code: a.code, code_verifier: a.verifier.padEnd(129, 'a') })],
    ['a verifier with +', (a) => json({ code: a.code, code_verifier: `${a.verifier.slice(0, 42)}+` })],
    ['a verifier with =', (a) => json({ code: a.code, code_verifier: `${a.verifier}=` })],
    ['a verifier with a space', (a) => json({ code: a.code, code_verifier: `${a.verifier.slice(0, 21)} ${a.verifier.slice(21)}` })],
    ['a verifier with a non-ASCII letter', (a) => json({ code: a.code, code_verifier: `${a.verifier.slice(0, 42)}é` })],
    ['Content-Type text/plain', (a) => json({ code: a.code, code_verifier: a.verifier }), { 'Content-Type': 'text/plain' }],
    ['no Content-Type', (a) => json({ code: a.code, code_verifier: a.verifier }), {}],
  ];

  it.each(cases)('%s → 400 invalid_request, logged, and the code is not spent', async (_name, body, headers) => {
    const approved = pairAndApprove(h);
    const denied = authRows(h.app, { outcome: 'denied' }).length;
    const res = await exchange(h.app, body(approved), headers);
    expectMalformed(res);
    expect(res.text).not.toContain(approved.verifier);
    expect(authRows(h.app, { outcome: 'denied' })).toHaveLength(denied + 1);
    // Only success, a failed verification or 5 minutes deletes a code.
    expectToken(await redeem(h.app, approved));
  });

  it('a code of exactly 1,024 bytes is not refused for its size (404: unknown)', async () => {
    expectNotFound(await exchange(h.app, { code: 'a'.repeat(1024), code_verifier: 'x'.repeat(43) }));
  });

  it('accepts application/json with a charset parameter', async () => {
    const approved = pairAndApprove(h);
    expectToken(
      await exchange(h.app, { code: approved.code, code_verifier: approved.verifier }, {
        'Content-Type': 'application/json; charset=utf-8',
      }),
    );
  });
});

describe('POST only', () => {
  it.each(['GET', 'PUT', 'DELETE'])('%s → 405 with Allow: POST', async (method) => {
    const approved = pairAndApprove(h);
    const body = JSON.stringify({ code: approved.code, code_verifier: approved.verifier });
    const reply = await rawRequest(h.app.port, {
      method,
      path: '/v1/integrations/exchange',
      ...(method === 'GET' ? {} : { headers: { 'Content-Type': 'application/json' }, body }),
    });
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe('POST');
    expect(reply.json).toEqual({ error: 'method_not_allowed', error_description: expect.any(String) });
    expectToken(await redeem(h.app, approved));
  });
});

describe('Exchange endpoint errors: 429', () => {
  it('uses the contract’s figures: 5 failures within 5 minutes, 15 minutes locked out', () => {
    expect(EXCHANGE.lockout).toEqual({ failures: 5, windowSeconds: 300, lockoutSeconds: 900 });
  });

  it('five failed exchanges lock the address out: the next request, even a valid one, is 429 with Retry-After ≈ 900', async () => {
    const approved = pairAndApprove(h);
    const other = pairAndApprove(h);
    expectMismatch(await exchange(h.app, { code: other.code, code_verifier: wrongVerifier(other) }));
    expectMalformed(await exchange(h.app, '[]'));
    await failTimes(3);

    const seconds = expectLockedOut(await redeem(h.app, approved));
    expect(seconds).toBeGreaterThanOrEqual(LOCKOUT_SECONDS - 5);
    expectLockedOut(await exchange(h.app, { code: randomUUID(), code_verifier: 'x'.repeat(43) }));
    expectLockedOut(await exchange(h.app, 'not json'));
    // The lockout is per address and on the exchange only: /mcp is not affected.
    expectRpcError(await mcp(h.app, 'tools/list'), 401, -33009, 1);
    // A locked-out request never reached the code: it is still pending.
    expect(h.app.liveActors()).toBe(1);
    // Every locked-out attempt is logged too.
    expect(authRows(h.app, { action: 'pairing.exchange' }).filter((r) => r.outcome !== 'success')).toHaveLength(8);
  });

  it('four failures do not lock out; a success clears the count', async () => {
    await failTimes(4);
    expectToken(await redeem(h.app, pairAndApprove(h)));
    await failTimes(4);
    expectToken(await redeem(h.app, pairAndApprove(h)));
    await failTimes(5);
    expectLockedOut(await redeem(h.app, pairAndApprove(h)));
  });

  it('failures more than 5 minutes apart do not add up', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    await failTimes(4);
    vi.setSystemTime(Date.now() + 300_000 + 1_000);
    await failTimes(1);
    expectToken(await redeem(h.app, pairAndApprove(h)));
  });

  it('the lockout lasts 15 minutes (Date faked), then a valid exchange succeeds', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const lockedAt = Date.now();
    const approved = pairAndApprove(h);
    await failTimes(5);
    expect(expectLockedOut(await redeem(h.app, approved))).toBe(LOCKOUT_SECONDS);

    vi.setSystemTime(lockedAt + (LOCKOUT_SECONDS - 60) * 1000);
    const left = expectLockedOut(await redeem(h.app, approved));
    expect(left).toBeGreaterThanOrEqual(59);
    expect(left).toBeLessThanOrEqual(60);

    vi.setSystemTime(lockedAt + LOCKOUT_SECONDS * 1000 + 1_000);
    expectToken(await redeem(h.app, approved));
  });
});

describe('Activity log', () => {
  it('every failed exchange writes one auth row with outcome denied; no row and no response holds a verifier or the token', async () => {
    const malformedVerifier = `${'q'.repeat(41)}+=`;
    const responses: RawResponse[] = [];
    const send = async (res: Promise<RawResponse>) => {
      const reply = await res;
      responses.push(reply);
      return reply;
    };

    const burned = pairAndApprove(h);
    const expired = pairAndApprove(h);
    const good = pairAndApprove(h);
    const before = authRows(h.app, { outcome: 'denied' }).length;

    expectMalformed(await send(exchange(h.app, { code: good.code, code_verifier: malformedVerifier })));
    expectMismatch(await send(exchange(h.app, { code: burned.code, code_verifier: good.verifier })));
    expectNotFound(await send(redeem(h.app, burned)));
    h.clock.increment(200_000);
    const fresh = pairAndApprove(h);
    h.clock.increment(100_000);
    expectExpired(await send(redeem(h.app, expired)));

    const denied = authRows(h.app, { outcome: 'denied' }).slice(before);
    expect(denied.map((r) => [r.action, JSON.parse(r.detail ?? '{}').status])).toEqual([
      ['pairing.exchange', 400],
      ['pairing.exchange', 403],
      ['pairing.exchange', 404],
      ['pairing.exchange', 410],
    ]);

    const token = expectToken(await send(redeem(h.app, fresh)));
    expect(authRows(h.app, { action: 'pairing.exchange', outcome: 'success' })).toHaveLength(1);
    expect(authRows(h.app, { outcome: 'denied' }).slice(before)).toHaveLength(4);

    const log = wholeActivityLog(h.app);
    const secrets = [burned.verifier, expired.verifier, good.verifier, fresh.verifier, malformedVerifier];
    for (const secret of secrets) {
      expect(log).not.toContain(secret);
      for (const reply of responses) expect(reply.text).not.toContain(secret);
    }
    expect(log).not.toContain(token);
  });
});

describe('Host and Origin rules on the exchange path', () => {
  const body = (a: Approved) => JSON.stringify({ code: a.code, code_verifier: a.verifier });

  it('an Origin other than the two allowed ones is 403 forbidden_origin, and the code is untouched', async () => {
    const approved = pairAndApprove(h);
    const reply = await rawRequest(h.app.port, {
      path: '/v1/integrations/exchange',
      headers: { 'Content-Type': 'application/json', Origin: 'https://evil.example' },
      body: body(approved),
    });
    expect(reply.status).toBe(403);
    expect(reply.json).toEqual({ error: 'forbidden_origin', error_description: expect.any(String) });
    expectToken(await redeem(h.app, approved));
  });

  it('a Host that is not loopback is 403 forbidden_host', async () => {
    const approved = pairAndApprove(h);
    const reply = await rawRequest(h.app.port, {
      path: '/v1/integrations/exchange',
      headers: { 'Content-Type': 'application/json', Host: `evil.example:${h.app.port}` },
      body: body(approved),
    });
    expect(reply.status).toBe(403);
    expect(reply.json).toEqual({ error: 'forbidden_host', error_description: expect.any(String) });
    expectToken(await redeem(h.app, approved));
  });

  it('an allowed Origin may exchange', async () => {
    const approved = pairAndApprove(h);
    const reply = await rawRequest(h.app.port, {
      path: '/v1/integrations/exchange',
      headers: { 'Content-Type': 'application/json', Origin: 'https://claude.ai', Host: `localhost:${h.app.port}` },
      body: body(approved),
    });
    expect(reply.status).toBe(200);
    expect(reply.json.token).toMatch(/^sl_/);
  });
});

describe('tokens minted by pairing', () => {
  it('keep their expiry in simulated time: a 1-day token is refused after a day', async () => {
    const token = expectToken(await redeem(h.app, pairAndApprove(h, { expiresInDays: 1 })));
    expectModernSuccess(await listToolsWith(h.app, token));
    h.clock.increment(DAY_MS);
    expectRpcError(await listToolsWith(h.app, token), 401, -33008, 1);
  });
});
