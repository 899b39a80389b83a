/**
 * Pairing as the user and the client see it (wire-contract.md: "Pairing request", "Pairing code", "Deep
 * link that starts pairing", "Authentication" 5 and 8; decisions.md: "Pairing details"). The sheet is
 * driven in-process through `app.pairing` with a simulated clock; callbacks are collected, not delivered;
 * codes are exchanged over real HTTP.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  authRows,
  callbackFields,
  CLIENT_NAME,
  DAY_MS,
  exchange,
  expectExchangeError,
  expectToken,
  listToolsWith,
  LOOPBACK_REDIRECT,
  openPairing,
  pairAndApprove,
  type PairingApp,
  pairingLink,
  RAYCAST_REDIRECT,
  redeem,
  START_TIME,
  startPairingApp,
  UUID,
} from '../helpers/pairing.js';
import { expectModernSuccess, expectRpcError } from '../helpers/rpcAssertions.js';

const iso = (time: number) => new Date(time).toISOString();
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const DENIED_FLAT = 'error=denied&error_description=user_denied';

let h: PairingApp;
beforeEach(async () => {
  h = await startPairingApp();
});
afterEach(async () => {
  await h.app.dispose();
});

describe('Pairing request: (none) → Awaiting approval', () => {
  it('a good link opens a sheet with the client, the redirect, the levels, the connections, the expiries and 300 s', () => {
    const opened = h.app.pairing.openLink(pairingLink());
    expect(opened).toEqual({
      ok: true,
      sheet: {
        id: expect.any(String),
        kind: 'pairing',
        clientName: CLIENT_NAME,
        redirect: LOOPBACK_REDIRECT,
        requestedLevel: 'readWrite',
        levels: ['readOnly', 'readWrite', 'fullAccess'],
        connections: [{ id: 'demo', name: 'Demo bookshop' }],
        tools: [],
        expiryChoices: [null, 1, 7, 30, 90],
        defaultExpiryDays: 30,
        secondsLeft: 300,
        expiresAt: h.clock.now() + 300_000,
        status: 'awaitingApproval',
      },
    });
    if (!opened.ok) return;
    expect(h.app.pairing.approvals()).toEqual([opened.sheet]);
    expect(h.app.liveActors()).toBe(1);
    expect(authRows(h.app, { action: 'pairing.requested' })).toMatchObject([
      { outcome: 'success', client_name: CLIENT_NAME },
    ]);
    expect(h.delivered).toEqual([]);
  });

  it('the countdown runs: 240 s left after a minute, 1 s left at 299,999 ms', () => {
    const { sheet } = openPairing(h);
    h.clock.increment(60_000);
    expect(h.app.pairing.approvals()).toMatchObject([{ id: sheet.id, secondsLeft: 240 }]);
    h.clock.increment(239_999);
    expect(h.app.pairing.approvals()).toMatchObject([{ id: sheet.id, secondsLeft: 1 }]);
  });

  it('several sheets can wait at once', () => {
    const first = openPairing(h, { client: 'First' });
    const second = openPairing(h, { client: 'Second' });
    expect(first.sheet.id).not.toBe(second.sheet.id);
    expect(h.app.pairing.approvals().map((s) => s.clientName).sort()).toEqual(['First', 'Second']);
    expect(h.app.liveActors()).toBe(2);
  });
});

describe('Pairing request: (none) → Refused (redirect not local)', () => {
  it.each([
    'https://evil.example/cb',
    'http://user:pw@127.0.0.1/cb',
    'http://user@localhost:9/cb',
    'http://127.0.0.1.evil.example/cb',
    'https://10.0.0.1/cb',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'sluice://integrations/pair',
    'ssh://127.0.0.1/',
  ])('%s is refused with the sentence the user sees; no sheet, no actor, an auth/denied row', (redirect) => {
    const before = h.app.liveActors();
    const opened = h.app.pairing.openLink(pairingLink({ redirect }));
    expect(opened.ok).toBe(false);
    if (opened.ok) return;
    expect(opened.reason).toMatch(/^The redirect .+ is not a local callback: .+\.$/);
    expect(h.app.liveActors()).toBe(before);
    expect(h.app.pairing.approvals()).toEqual([]);
    expect(authRows(h.app, { action: 'pairing.refused' })).toMatchObject([{ category: 'auth', outcome: 'denied' }]);
    expect(authRows(h.app, { action: 'pairing.requested' })).toEqual([]);
    expect(h.delivered).toEqual([]);
  });

  it('a malformed link (challenge of 42 characters) is refused too, and logged', () => {
    const opened = h.app.pairing.openLink(pairingLink({ challenge: 'a'.repeat(42) }));
    expect(opened.ok).toBe(false);
    expect(h.app.liveActors()).toBe(0);
    expect(authRows(h.app, { action: 'pairing.refused', outcome: 'denied' })).toHaveLength(1);
  });
});

describe('Pairing request: Awaiting approval → Code pending', () => {
  it('approve with the sheet’s defaults: the requested level, all connections, 30 days; the callback carries the code and state', async () => {
    const { sheet } = openPairing(h);
    const approved = h.app.pairing.approve(sheet.id);
    expect(approved).toEqual({ ok: true, tokenId: expect.stringMatching(/^tok_[0-9a-f]{12}$/) });
    if (!approved.ok) return;

    const tokens = h.app.tokens.list();
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({
      id: approved.tokenId,
      name: CLIENT_NAME,
      level: 'readWrite',
      connections: 'all',
      createdAt: iso(START_TIME),
      expiresAt: iso(START_TIME + 30 * DAY_MS),
    });
    expect(tokens[0]?.revokedAt).toBeUndefined();

    expect(h.delivered).toHaveLength(1);
    const match = /^http:\/\/127\.0\.0\.1:9\/cb\?code=([^&]+)&state=s1$/.exec(h.delivered[0]!);
    expect(match?.[1]).toMatch(UUID);
    expect(h.app.pairing.approvals()).toEqual([]);
    expect(authRows(h.app, { action: 'pairing.approved' })).toMatchObject([
      { outcome: 'success', token_id: approved.tokenId, client_name: CLIENT_NAME },
    ]);
  });

  it('the level can move down: readOnly, connections [demo], never expires', async () => {
    const approved = pairAndApprove(h, { level: 'readOnly', connections: ['demo'], expiresInDays: null });
    const record = h.app.tokens.get(approved.tokenId);
    expect(record).toMatchObject({ level: 'readOnly', connections: ['demo'] });
    expect(record).not.toHaveProperty('expiresAt');
    const token = expectToken(await redeem(h.app, approved));
    expectModernSuccess(await listToolsWith(h.app, token));
  });

  it('the level can move up: fullAccess, 7 days', async () => {
    const approved = pairAndApprove(h, { level: 'fullAccess', expiresInDays: 7 });
    expect(h.app.tokens.get(approved.tokenId)).toMatchObject({
      level: 'fullAccess',
      connections: 'all',
      expiresAt: iso(START_TIME + 7 * DAY_MS),
    });
    const token = expectToken(await redeem(h.app, approved));
    expectModernSuccess(await listToolsWith(h.app, token));
  });

  it.each([1, 90])('an expiry of %i days is honoured', (days) => {
    const approved = pairAndApprove(h, { expiresInDays: days });
    expect(h.app.tokens.get(approved.tokenId)?.expiresAt).toBe(iso(START_TIME + days * DAY_MS));
  });

  it('approving an unknown connection is refused; the sheet stays and nothing is minted or delivered', () => {
    const { sheet } = openPairing(h);
    const refused = h.app.pairing.approve(sheet.id, { connections: ['demo', 'nope'] });
    expect(refused).toEqual({ ok: false, reason: expect.stringContaining('nope') });
    expect(h.app.tokens.list()).toEqual([]);
    expect(h.delivered).toEqual([]);
    expect(h.app.pairing.approvals().map((s) => s.id)).toEqual([sheet.id]);
    expect(h.app.pairing.approve(sheet.id, { connections: ['demo'] }).ok).toBe(true);
  });

  it('approving an expiry that is not one of the choices (5 days) is refused; the sheet stays', () => {
    const { sheet } = openPairing(h);
    let refused: ReturnType<typeof h.app.pairing.approve> | undefined;
    expect(() => {
      refused = h.app.pairing.approve(sheet.id, { expiresInDays: 5 });
    }).not.toThrow();
    expect(refused?.ok).toBe(false);
    expect(h.app.tokens.list()).toEqual([]);
    expect(h.delivered).toEqual([]);
    expect(h.app.pairing.approvals().map((s) => s.id)).toEqual([sheet.id]);
  });

  it('an unknown sheet id is refused', () => {
    expect(h.app.pairing.approve('nosuchid').ok).toBe(false);
    expect(h.app.pairing.deny('nosuchid').ok).toBe(false);
  });
});

describe('Pairing request: Awaiting approval → Denied', () => {
  it('deny delivers error=denied&error_description=user_denied&state=s1, logs auth/denied, and the sheet is gone', () => {
    const { sheet } = openPairing(h);
    expect(h.app.pairing.deny(sheet.id)).toEqual({ ok: true });
    expect(h.delivered).toEqual([`${LOOPBACK_REDIRECT}?${DENIED_FLAT}&state=s1`]);
    expect(authRows(h.app, { action: 'pairing.denied' })).toMatchObject([
      { category: 'auth', outcome: 'denied', client_name: CLIENT_NAME },
    ]);
    expect(h.app.pairing.approvals()).toEqual([]);
    expect(h.app.tokens.list()).toEqual([]);
  });

  it.each(['approve', 'deny'] as const)('once answered (%s), a second approve or deny is refused', (first) => {
    const { sheet } = openPairing(h);
    expect(h.app.pairing[first](sheet.id).ok).toBe(true);
    const tokens = h.app.tokens.list().length;
    expect(h.app.pairing.approve(sheet.id)).toEqual({ ok: false, reason: expect.stringContaining(sheet.id) });
    expect(h.app.pairing.deny(sheet.id)).toEqual({ ok: false, reason: expect.stringContaining(sheet.id) });
    expect(h.delivered).toHaveLength(1);
    expect(h.app.tokens.list()).toHaveLength(tokens);
  });
});

describe('callback forms', () => {
  it('a raycast:// redirect gets ?context= with the JSON {"code","state"}', async () => {
    const approved = pairAndApprove(h, {}, { redirect: RAYCAST_REDIRECT });
    const url = new URL(approved.callback);
    expect(approved.callback.startsWith(`${RAYCAST_REDIRECT}?context=`)).toBe(true);
    expect([...url.searchParams.keys()]).toEqual(['context']);
    const context = JSON.parse(decodeURIComponent(approved.callback.slice(`${RAYCAST_REDIRECT}?context=`.length)));
    expect(context).toEqual({ code: expect.stringMatching(UUID), state: 's1' });
    expectToken(await redeem(h.app, approved));
  });

  it('a raycast:// denial carries error and error_description in context', () => {
    const { sheet } = openPairing(h, { redirect: RAYCAST_REDIRECT });
    h.app.pairing.deny(sheet.id);
    expect(h.delivered).toHaveLength(1);
    expect(callbackFields(h.delivered[0]!)).toEqual({ error: 'denied', error_description: 'user_denied', state: 's1' });
    expect([...new URL(h.delivered[0]!).searchParams.keys()]).toEqual(['context']);
  });

  it('response_mode=context on a loopback redirect gets the context form', () => {
    const approved = pairAndApprove(h, {}, { responseMode: 'context' });
    expect(approved.callback).toMatch(new RegExp(`^${escaped(LOOPBACK_REDIRECT)}\\?context=[^&]+$`));
    expect(callbackFields(approved.callback)).toEqual({ code: expect.stringMatching(UUID), state: 's1' });
  });

  it('response_mode=query on raycast gets the flat form', () => {
    const approved = pairAndApprove(h, {}, { redirect: RAYCAST_REDIRECT, responseMode: 'query' });
    expect(approved.callback).toMatch(new RegExp(`^${escaped(RAYCAST_REDIRECT)}\\?code=[0-9a-f-]{36}&state=s1$`));
    expect(approved.code).toMatch(UUID);
  });

  it('without state, the callback has no state', () => {
    const approved = pairAndApprove(h, {}, { state: null });
    expect(approved.callback).toMatch(new RegExp(`^${escaped(LOOPBACK_REDIRECT)}\\?code=[0-9a-f-]{36}$`));
  });

  it('a private-use scheme that is not a launcher gets the flat form', () => {
    const approved = pairAndApprove(h, {}, { redirect: 'com.example.app:/oauth2redirect' });
    expect(approved.callback).toMatch(/^com\.example\.app:\/oauth2redirect\?code=[0-9a-f-]{36}&state=s1$/);
  });
});

describe('Pairing request: Awaiting approval → Expired', () => {
  it('after 5 minutes the sheet is expired: not listed, approve and deny refused, an auth/denied pairing.expired row', () => {
    const { sheet } = openPairing(h);
    h.clock.increment(300_000);
    expect(h.app.pairing.approvals()).toEqual([]);
    expect(h.app.pairing.approve(sheet.id)).toEqual({ ok: false, reason: expect.stringContaining(sheet.id) });
    expect(h.app.pairing.deny(sheet.id).ok).toBe(false);
    expect(authRows(h.app, { action: 'pairing.expired' })).toMatchObject([{ category: 'auth', outcome: 'denied' }]);
    expect(h.app.tokens.list()).toEqual([]);
    expect(h.delivered).toEqual([]);
  });

  it('at 299,999 ms approve still works, and the code then lives 5 minutes of its own', async () => {
    const { sheet, verifier } = openPairing(h);
    h.clock.increment(299_999);
    expect(h.app.pairing.approve(sheet.id).ok).toBe(true);
    const code = callbackFields(h.delivered[0]!).code!;
    h.clock.increment(299_999);
    expectToken(await redeem(h.app, { code, verifier }));
    expect(authRows(h.app, { action: 'pairing.expired' })).toEqual([]);
  });
});

describe('pairing again', () => {
  it('mints an additional token; the first stays valid', async () => {
    const first = pairAndApprove(h);
    const firstToken = expectToken(await redeem(h.app, first));
    const second = pairAndApprove(h);
    const secondToken = expectToken(await redeem(h.app, second));

    expect(secondToken).not.toBe(firstToken);
    expect(h.app.tokens.list().map((t) => t.id).sort()).toEqual([first.tokenId, second.tokenId].sort());
    expect(h.app.tokens.list().every((t) => t.revokedAt === undefined)).toBe(true);
    expectModernSuccess(await listToolsWith(h.app, firstToken));
    expectModernSuccess(await listToolsWith(h.app, secondToken));
    expectRpcError(await listToolsWith(h.app, `sl_${'A'.repeat(43)}`), 401, -33009, 1);
  });

  it('the code of one pairing does not open with the verifier of another', async () => {
    const first = pairAndApprove(h);
    const second = pairAndApprove(h);
    expectExchangeError(await exchange(h.app, { code: first.code, code_verifier: second.verifier }), 403, 'invalid_grant');
    expectToken(await redeem(h.app, second));
  });
});

describe('actors are reaped', () => {
  it('approved and exchanged', async () => {
    expect(h.app.liveActors()).toBe(0);
    const { sheet, verifier } = openPairing(h);
    expect(h.app.liveActors()).toBe(1);
    h.app.pairing.approve(sheet.id);
    expect(h.app.liveActors()).toBe(1); // the sheet is done; the code is pending
    expectToken(await redeem(h.app, { code: callbackFields(h.delivered[0]!).code!, verifier }));
    expect(h.app.liveActors()).toBe(0);
  });

  it('denied', () => {
    const { sheet } = openPairing(h);
    h.app.pairing.deny(sheet.id);
    expect(h.app.liveActors()).toBe(0);
  });

  it('an expired sheet', () => {
    openPairing(h);
    h.clock.increment(299_999);
    expect(h.app.liveActors()).toBe(1);
    h.clock.increment(1);
    expect(h.app.liveActors()).toBe(0);
  });

  it('a burned code, whose token nobody received is revoked', async () => {
    const approved = pairAndApprove(h);
    expect(h.app.liveActors()).toBe(1);
    expectExchangeError(await exchange(h.app, { code: approved.code, code_verifier: 'w'.repeat(43) }), 403, 'invalid_grant');
    expect(h.app.liveActors()).toBe(0);
    expect(h.app.tokens.get(approved.tokenId)?.revokedAt).toBeDefined();
  });

  it('an expired code, once its 10-minute tombstone ends; its token is revoked then', () => {
    const approved = pairAndApprove(h);
    h.clock.increment(300_000);
    expect(h.app.liveActors()).toBe(1); // the tombstone answers 410
    h.clock.increment(599_999);
    expect(h.app.liveActors()).toBe(1);
    expect(h.app.tokens.get(approved.tokenId)?.revokedAt).toBeUndefined();
    h.clock.increment(1);
    expect(h.app.liveActors()).toBe(0);
    expect(h.app.tokens.get(approved.tokenId)?.revokedAt).toBeDefined();
  });

  it('many pairings in every outcome leave nothing behind', async () => {
    for (let i = 0; i < 5; i += 1) {
      const approved = pairAndApprove(h);
      expectToken(await redeem(h.app, approved));
      h.app.pairing.deny(openPairing(h).sheet.id);
      openPairing(h);
      pairAndApprove(h);
    }
    expect(h.app.liveActors()).toBe(10);
    // SimulatedClock runs a timer set while it flushes from the new time: step through each deadline.
    h.clock.increment(300_000);
    expect(h.app.liveActors()).toBe(5); // the sheets expired; the codes are tombstones
    h.clock.increment(600_000);
    expect(h.app.liveActors()).toBe(0);
  });
});
