import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ApprovalChoice } from '../../machines/pairingRequest.js';
import { permissionLevels, type PermissionLevel } from '../../src/auth/levels.js';
import { expiryChoices } from '../../src/auth/grant.js';
import { PAIRING } from '../../src/core/contract.js';
import { type ClientPairing, PairingHarness, wrongVerifier } from '../helpers/pairing.js';

/**
 * fast-check command sequences over pairing: open, approve (random level / expiry / connections), deny,
 * exchange with the right verifier, with a wrong one, of an unknown code, and time moving by 0–12 minutes,
 * for up to 3 pairings awaiting approval at once. A small model (pairings with their creation time and
 * answer, codes with their issue time and use) predicts every answer; after every command the app's
 * sheets, countdowns and live actors must match it.
 *
 * Lockout: each run starts a fresh app AND makes at most 4 failed exchanges (commands that would make a
 * fifth are not generated), so the per-address lockout (5 failures → 429) never fires. That keeps the
 * runs independent of how the lockout counts (it resets on success and runs on the wall clock, not the
 * app's clock; see the report), which is not what this property is about.
 */

const MIN = 60_000;
const DAY_MS = 86_400_000;
const MAX_FAILED_EXCHANGES = 4;
const MAX_AWAITING = 3;
const NUM_RUNS = 100;
const DEMO_CONNECTION = 'demo';

type Answer = 'approved' | 'denied';
type ModelCode = {
  code: string;
  verifier: string;
  issuedAt: number;
  tokenId: string;
  used?: 'spent' | 'burned';
};
type ModelPairing = { client: ClientPairing; requested: PermissionLevel; createdAt: number; answer?: Answer; code?: ModelCode };
type Model = { now: number; pairings: ModelPairing[]; failures: number; tokens: string[] };

const requestState = (p: ModelPairing, now: number) =>
  p.answer ?? (now - p.createdAt >= PAIRING.approvalWindowMs ? 'expired' : 'awaiting');

const codeState = (c: ModelCode, now: number) => {
  if (c.used) return c.used;
  const age = now - c.issuedAt;
  if (age < PAIRING.codeLifetimeMs) return 'pending';
  return age < PAIRING.codeLifetimeMs + PAIRING.codeTombstoneMs ? 'expired' : 'gone';
};

const codes = (m: Readonly<Model>) => m.pairings.flatMap((p) => (p.code ? [p.code] : []));
const awaiting = (m: Readonly<Model>) => m.pairings.filter((p) => requestState(p, m.now) === 'awaiting');
/** What the supervisor should hold: open sheets, pending codes, expired codes until their tombstone ends. */
const liveThings = (m: Readonly<Model>) =>
  awaiting(m).length + codes(m).filter((c) => ['pending', 'expired'].includes(codeState(c, m.now))).length;

const EXPECTED_STATUS = {
  good: { pending: 200, expired: 410, spent: 404, burned: 404, gone: 404 },
  bad: { pending: 403, expired: 410, spent: 404, burned: 404, gone: 404 },
} as const;

/** What the runs saw, for the report. */
const seen = new Map<string, number>();
const tally = (what: string) => {
  commandsRun++;
  seen.set(what, (seen.get(what) ?? 0) + 1);
};
let runs = 0;
let commandsRun = 0;

async function invariants(m: Model, h: PairingHarness): Promise<void> {
  expect(h.clock.now()).toBe(m.now);
  const sheets = h.app.pairing.approvals();
  const expected = awaiting(m);
  expect(sheets.map((s) => s.id).sort()).toEqual(expected.map((p) => p.client.sheetId).sort());
  for (const p of expected) {
    const sheet = sheets.find((s) => s.id === p.client.sheetId);
    expect(sheet?.secondsLeft).toBe(Math.ceil((p.createdAt + PAIRING.approvalWindowMs - m.now) / 1000));
  }
  expect(h.app.liveActors()).toBe(h.baseline + liveThings(m));
  expect(h.exchangeFailures).toBe(m.failures);
  // A token nobody received is revoked once its code is final: burned at once, expired when forgotten.
  for (const code of codes(m)) {
    const state = codeState(code, m.now);
    expect(h.app.tokens.get(code.tokenId)?.revokedAt !== undefined, `token of a ${state} code revoked`).toBe(
      state === 'burned' || state === 'gone',
    );
  }
}

type Cmd = fc.AsyncCommand<Model, PairingHarness>;

class Open implements Cmd {
  constructor(readonly level: PermissionLevel) {}
  check = (m: Readonly<Model>) => awaiting(m).length < MAX_AWAITING;
  async run(m: Model, h: PairingHarness) {
    m.pairings.push({ client: h.open(this.level), requested: this.level, createdAt: m.now });
    tally('open');
    await invariants(m, h);
  }
  toString = () => `open(${this.level})`;
}

type Connections = 'all' | 'demo' | 'default';
class Approve implements Cmd {
  constructor(
    readonly pick: number,
    readonly level: PermissionLevel | undefined,
    readonly expiresInDays: number | null | undefined,
    readonly connections: Connections,
  ) {}
  check = (m: Readonly<Model>) => m.pairings.length > 0;
  async run(m: Model, h: PairingHarness) {
    const p = m.pairings[this.pick % m.pairings.length]!;
    const state = requestState(p, m.now);
    const chosen: Partial<ApprovalChoice> = {};
    if (this.level !== undefined) chosen.level = this.level;
    if (this.expiresInDays !== undefined) chosen.expiresInDays = this.expiresInDays;
    if (this.connections !== 'default') chosen.connections = this.connections === 'all' ? 'all' : [DEMO_CONNECTION];
    const callbacksBefore = h.callbacks(p.client).length;
    const tokensBefore = h.app.tokens.list().length;
    const result = h.app.pairing.approve(p.client.sheetId, chosen);
    if (state !== 'awaiting') {
      tally(`approve refused (${state})`);
      expect(result.ok).toBe(false);
      expect(h.callbacks(p.client)).toHaveLength(callbacksBefore);
      expect(h.app.tokens.list()).toHaveLength(tokensBefore);
    } else {
      tally('approve');
      expect(result).toMatchObject({ ok: true });
      const tokenId = (result as { tokenId: string }).tokenId;
      const record = h.app.tokens.get(tokenId)!;
      const days = this.expiresInDays === undefined ? PAIRING.defaultExpiryDays : this.expiresInDays;
      expect(record).toMatchObject({
        level: this.level ?? p.requested,
        connections: this.connections === 'demo' ? [DEMO_CONNECTION] : 'all',
      });
      expect(record.expiresAt).toBe(days === null ? undefined : new Date(m.now + days * DAY_MS).toISOString());
      p.answer = 'approved';
      p.code = { code: h.codeOf(p.client), verifier: p.client.verifier, issuedAt: m.now, tokenId };
    }
    await invariants(m, h);
  }
  toString = () =>
    `approve(#${this.pick}, ${this.level ?? 'requested'}, ${this.expiresInDays === undefined ? 'default' : String(this.expiresInDays)} days, ${this.connections})`;
}

class Deny implements Cmd {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => m.pairings.length > 0;
  async run(m: Model, h: PairingHarness) {
    const p = m.pairings[this.pick % m.pairings.length]!;
    const state = requestState(p, m.now);
    const callbacksBefore = h.callbacks(p.client).length;
    const result = h.app.pairing.deny(p.client.sheetId);
    if (state !== 'awaiting') {
      tally(`deny refused (${state})`);
      expect(result.ok).toBe(false);
      expect(h.callbacks(p.client)).toHaveLength(callbacksBefore);
    } else {
      tally('deny');
      expect(result).toEqual({ ok: true });
      const last = h.callbacks(p.client).at(-1)!;
      expect(Object.fromEntries(last.searchParams)).toEqual({ error: 'denied', error_description: 'user_denied' });
      p.answer = 'denied';
    }
    await invariants(m, h);
  }
  toString = () => `deny(#${this.pick})`;
}

class Exchange implements Cmd {
  constructor(
    readonly pick: number,
    readonly verifier: 'good' | 'bad',
  ) {}
  #target(m: Readonly<Model>): ModelCode | undefined {
    const all = codes(m);
    return all[this.pick % all.length];
  }
  check = (m: Readonly<Model>) => {
    const code = this.#target(m);
    if (!code) return false;
    const succeeds = this.verifier === 'good' && codeState(code, m.now) === 'pending';
    return succeeds || m.failures < MAX_FAILED_EXCHANGES;
  };
  async run(m: Model, h: PairingHarness) {
    const code = this.#target(m)!;
    const state = codeState(code, m.now);
    const expected = EXPECTED_STATUS[this.verifier][state];
    const reply = await h.exchange(code.code, this.verifier === 'good' ? code.verifier : wrongVerifier(code.verifier));
    tally(`exchange ${this.verifier} ${state} → ${reply.status}`);
    expect(reply.status, `${this.verifier} verifier, ${state} code`).toBe(expected);
    if (reply.status === 200) {
      const token = (reply.body as { token: string }).token;
      expect(h.app.tokens.verify(token, m.now)).toMatchObject({ ok: true, record: { id: code.tokenId } });
      expect(await h.toolsListStatus(token)).toBe(200);
      m.tokens.push(token);
      code.used = 'spent';
    } else {
      m.failures++;
      if (state === 'pending') code.used = 'burned';
    }
    await invariants(m, h);
  }
  toString = () => `exchange(#${this.pick}, ${this.verifier})`;
}

class ExchangeUnknown implements Cmd {
  // Only as the first failure of a run: the budget of failures is better spent on real codes.
  check = (m: Readonly<Model>) => m.failures === 0;
  async run(m: Model, h: PairingHarness) {
    const reply = await h.exchange(randomUUID(), wrongVerifier(''));
    tally(`exchange unknown → ${reply.status}`);
    expect(reply).toMatchObject({ status: 404, body: { error: 'not_found' } });
    m.failures++;
    await invariants(m, h);
  }
  toString = () => 'exchangeUnknown()';
}

class Advance implements Cmd {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(m: Model, h: PairingHarness) {
    h.clock.advance(this.ms);
    m.now += this.ms;
    tally('advance');
    await invariants(m, h);
  }
  toString = () => `advance(${this.ms} ms)`;
}

const pick = fc.nat({ max: 30 });
const open = fc.constantFrom(...permissionLevels).map((level): Cmd => new Open(level));
const approve = fc
  .tuple(
    pick,
    fc.option(fc.constantFrom(...permissionLevels), { nil: undefined }),
    fc.option(fc.constantFrom(...expiryChoices), { nil: undefined }),
    fc.constantFrom<Connections>('default', 'all', 'demo'),
  )
  .map(([i, level, days, connections]): Cmd => new Approve(i, level, days, connections));
const deny = pick.map((i): Cmd => new Deny(i));
const exchangeGood = pick.map((i): Cmd => new Exchange(i, 'good'));
const exchangeBad = pick.map((i): Cmd => new Exchange(i, 'bad'));
const exchangeUnknown = fc.constant<Cmd>(new ExchangeUnknown());
const advance = fc
  .oneof(
    fc.integer({ min: 0, max: 12 * MIN }),
    // Mostly short steps, so that several pairings and codes overlap in time.
    fc.integer({ min: 0, max: 2 * MIN }),
    // The edges: a window or lifetime ending exactly now, or a millisecond before.
    fc.constantFrom(1, 1_000, 60_000, 299_000, 299_999, 300_000, 600_000, 12 * MIN),
  )
  .map((ms): Cmd => new Advance(ms));
/** fc.commands picks uniformly among its arbitraries: repeats weight them towards codes worth exchanging. */
const commandArbs: fc.Arbitrary<Cmd>[] = [
  open,
  open,
  approve,
  approve,
  approve,
  deny,
  exchangeGood,
  exchangeGood,
  exchangeGood,
  exchangeBad,
  exchangeUnknown,
  advance,
  advance,
];

afterAll(() => {
  const lines = [...seen.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([what, n]) => `  ${what}: ${n}`);
  console.log(`pairing commands: ${runs} runs, ${commandsRun} commands\n${lines.join('\n')}`);
});

describe('pairing under random command sequences (fast-check) against the real app', () => {
  it('every answer, sheet, countdown and live-actor count matches the model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commandArbs, { maxCommands: 25, size: 'max' }), async (cmds) => {
        const h = await PairingHarness.start();
        try {
          const model: Model = { now: 0, pairings: [], failures: 0, tokens: [] };
          await fc.asyncModelRun(() => ({ model, real: h }), cmds);
          // Every token the runs bought still authenticates.
          for (const token of model.tokens) expect(await h.toolsListStatus(token)).toBe(200);
          // Once everything is final, nothing of the pairings is left alive and no timer is waiting.
          h.clock.advance(PAIRING.approvalWindowMs + PAIRING.codeLifetimeMs + PAIRING.codeTombstoneMs);
          model.now += PAIRING.approvalWindowMs + PAIRING.codeLifetimeMs + PAIRING.codeTombstoneMs;
          expect(liveThings(model)).toBe(0);
          await invariants(model, h);
          expect(h.app.liveActors()).toBe(h.baseline);
          expect(h.clock.pendingTimers()).toBe(h.baselineTimers);
          runs++;
        } finally {
          await h.dispose();
        }
      }),
      { numRuns: NUM_RUNS },
    );
    // About 10 s on a quiet 2-core machine; a busy one needs room, and a hang still fails.
  }, 60_000);
});
