import { afterAll, describe, expect, it } from 'vitest';
import { assign, setup, type SnapshotFrom } from 'xstate';
import { describePaths, reachablePaths } from '../helpers/modelPaths.js';
import { type ClientPairing, type ExchangeReply, PairingHarness, wrongVerifier } from '../helpers/pairing.js';

/**
 * Model-based test of the contract's "Pairing code" table and the exchange endpoint's errors: a pending
 * code is spent by the right verifier (200 + token), burned by a wrong one (403), expired after 5 minutes
 * (410 while the record is kept: 10 more minutes), then gone (404); spent, burned and gone codes answer
 * 404 and stay put. Time is an event that moves the app's simulated clock; the boundaries are probed with
 * 299 s + 1 s (code lifetime) and 599 s + 1 s (tombstone).
 *
 * Each path runs on a fresh app: failed exchanges count towards the per-address lockout (5 → 429), and a
 * path makes at most 3 (checked).
 */

const MIN = 60_000;

type CodeEvent =
  | { type: 'EXCHANGE_GOOD' }
  | { type: 'EXCHANGE_BAD' }
  | { type: 'WAIT_299_S' }
  | { type: 'WAIT_1_S' }
  | { type: 'WAIT_5_MIN' }
  | { type: 'WAIT_599_S' }
  | { type: 'WAIT_10_MIN' };

/** `probe`: the one exchange tried after the code left `pending` (one per path keeps the graph small). */
type CodeContext = { ageS: number; probe: 'none' | 'good' | 'bad' };

const probeOnce = {
  EXCHANGE_GOOD: { guard: 'unprobed', actions: 'probedGood' },
  EXCHANGE_BAD: { guard: 'unprobed', actions: 'probedBad' },
} as const;

const codeModel = setup({
  types: { context: {} as CodeContext, events: {} as CodeEvent },
  guards: {
    unprobed: ({ context }) => context.probe === 'none',
    age: ({ context }, ageS: number) => context.ageS === ageS,
  },
  actions: {
    probedGood: assign({ probe: 'good' as const }),
    probedBad: assign({ probe: 'bad' as const }),
  },
}).createMachine({
  id: 'pairingCodeModel',
  context: { ageS: 0, probe: 'none' },
  initial: 'pending',
  states: {
    pending: {
      on: {
        EXCHANGE_GOOD: 'spent',
        EXCHANGE_BAD: 'burned',
        WAIT_299_S: { guard: { type: 'age', params: 0 }, actions: assign({ ageS: 299 }) },
        WAIT_1_S: { guard: { type: 'age', params: 299 }, target: 'expired', actions: assign({ ageS: 300 }) },
        WAIT_5_MIN: { guard: { type: 'age', params: 0 }, target: 'expired', actions: assign({ ageS: 300 }) },
      },
    },
    spent: { on: probeOnce },
    burned: { on: probeOnce },
    expired: {
      on: {
        ...probeOnce,
        WAIT_10_MIN: { guard: { type: 'age', params: 300 }, target: 'gone', actions: assign({ ageS: 900 }) },
        WAIT_599_S: { guard: { type: 'age', params: 300 }, actions: assign({ ageS: 899 }) },
        WAIT_1_S: { guard: { type: 'age', params: 899 }, target: 'gone', actions: assign({ ageS: 900 }) },
      },
    },
    gone: { on: probeOnce },
  },
});

type ModelState = SnapshotFrom<typeof codeModel>;
type ModelPath = (typeof paths.shortest)[number];
type StateName = 'pending' | 'spent' | 'burned' | 'expired' | 'gone';

const paths = reachablePaths(codeModel);
const { shortest } = paths;

/** What an exchange answers, by the state the code is in when it arrives. */
const EXPECTED: Record<StateName, { good: number; bad: number }> = {
  pending: { good: 200, bad: 403 },
  expired: { good: 410, bad: 410 },
  spent: { good: 404, bad: 404 },
  burned: { good: 404, bad: 404 },
  gone: { good: 404, bad: 404 },
};

let exchanges = 0;
afterAll(() => {
  console.log(
    `pairingCode model: ${exchanges} exchanges over HTTP`,
  );
});

type Run = { h: PairingHarness; pairing: ClientPairing; code: string; current: StateName; last?: ExchangeReply; token?: string };

async function runPath(path: ModelPath): Promise<void> {
  const h = await PairingHarness.start();
  try {
    const pairing = h.open();
    expect(h.app.pairing.approve(pairing.sheetId)).toMatchObject({ ok: true });
    const run: Run = { h, pairing, code: h.codeOf(pairing), current: 'pending' };
    const checks = stateChecks(run);
    await checks.pending(codeModel.resolveState({ value: 'pending', context: { ageS: 0, probe: 'none' } }));

    const exchange = async (verifier: 'good' | 'bad') => {
      const reply = await h.exchange(run.code, verifier === 'good' ? pairing.verifier : wrongVerifier(pairing.verifier));
      exchanges++;
      expect(reply.status, `exchange with the ${verifier} verifier of a ${run.current} code`).toBe(EXPECTED[run.current][verifier]);
      run.last = reply;
    };
    await path.test({
      states: checks,
      events: {
        EXCHANGE_GOOD: () => exchange('good'),
        EXCHANGE_BAD: () => exchange('bad'),
        WAIT_299_S: () => h.clock.advance(299_000),
        WAIT_1_S: () => h.clock.advance(1_000),
        WAIT_5_MIN: () => h.clock.advance(5 * MIN),
        WAIT_599_S: () => h.clock.advance(599_000),
        WAIT_10_MIN: () => h.clock.advance(10 * MIN),
      },
    });
    // Whatever the path left, within 15 more minutes every code is final and stopped, no timer is left,
    // and the lockout was never reached.
    h.clock.advance(15 * MIN);
    expect(h.app.liveActors()).toBe(h.baseline);
    expect(h.clock.pendingTimers()).toBe(h.baselineTimers);
    expect(h.exchangeFailures).toBeLessThan(5);
  } finally {
    await h.dispose();
  }
}

function stateChecks(run: Run) {
  const { h, pairing } = run;
  const enter = (state: ModelState) => {
    run.current = state.value as StateName;
    expect(h.sheetIds()).toEqual([]);
    // The token minted at approval: revoked once its code ends without being spent (nobody received it).
    const [token, ...more] = h.app.tokens.list();
    expect(more).toEqual([]);
    expect(token!.revokedAt !== undefined, `token revoked in ${run.current}`).toBe(run.current === 'burned' || run.current === 'gone');
  };
  return {
    pending: (state: ModelState) => {
      enter(state);
      expect(run.last).toBeUndefined();
      expect(h.app.liveActors()).toBe(h.baseline + 1);
    },
    spent: async (state: ModelState) => {
      enter(state);
      if (state.context.probe === 'none') {
        expect(run.last).toMatchObject({ status: 200, body: { token: expect.stringMatching(/^sl_[A-Za-z0-9_-]{43}$/) } });
        run.token = (run.last!.body as { token: string }).token;
        // A repeat exchange of a spent code: 404, and nothing else changes.
        expect(await h.exchange(run.code, pairing.verifier)).toMatchObject({ status: 404, body: { error: 'not_found' } });
      } else {
        expect(run.last).toMatchObject({ status: 404 });
      }
      expect(h.app.liveActors()).toBe(h.baseline);
      // The token the exchange gave authenticates on /mcp, and is the one minted at approval.
      expect(await h.toolsListStatus(run.token!)).toBe(200);
      expect(h.app.tokens.verify(run.token!, h.clock.now())).toMatchObject({ ok: true, record: { name: `Model client ${pairing.n}` } });
    },
    burned: async (state: ModelState) => {
      enter(state);
      if (state.context.probe === 'none') {
        expect(run.last).toMatchObject({ status: 403, body: { error: 'invalid_grant' } });
        // The right verifier comes too late: the code is gone.
        expect(await h.exchange(run.code, pairing.verifier)).toMatchObject({ status: 404, body: { error: 'not_found' } });
      } else {
        expect(run.last).toMatchObject({ status: 404 });
      }
      expect(h.app.liveActors()).toBe(h.baseline);
    },
    expired: (state: ModelState) => {
      enter(state);
      if (state.context.probe !== 'none') expect(run.last).toMatchObject({ status: 410, body: { error: 'expired_code' } });
      // Its record is kept (as a tombstone) so that a late exchange hears 410.
      expect(h.app.liveActors()).toBe(h.baseline + 1);
    },
    gone: (state: ModelState) => {
      enter(state);
      if (state.context.probe !== 'none') expect(run.last?.status).toBeOneOf([404, 410]);
      expect(h.app.liveActors()).toBe(h.baseline);
    },
  };
}

describe('pairing code model (xstate/graph, timer-free) against the real app and its exchange endpoint', () => {
  it('the model covers every state of the contract table', () => {
    const reached = new Set(shortest.flatMap((p) => p.steps.map((s) => String(s.state.value))));
    expect([...reached].sort()).toEqual(['burned', 'expired', 'gone', 'pending', 'spent']);
  });

  describePaths('pairingCode', paths, runPath);
});
