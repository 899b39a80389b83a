import { describe, expect, it } from 'vitest';
import { assign, setup, type SnapshotFrom } from 'xstate';
import { describePaths, reachablePaths } from '../helpers/modelPaths.js';
import type { ApprovalChoice } from '../../machines/pairingRequest.js';
import { type ClientPairing, PairingHarness } from '../helpers/pairing.js';

/**
 * Model-based test of the contract's "Pairing request" table: awaiting approval → code pending (approved
 * within 5 minutes), denied, or expired (5 minutes pass; Approve dimmed). The model has no timers: time is
 * an event that moves the real app's simulated clock. 299 s then 1 s checks the window's edge.
 */

const MIN = 60_000;
const REQUESTED_LEVEL = 'readWrite';
const DAY_MS = 86_400_000;

type Choice = Partial<Pick<ApprovalChoice, 'level' | 'expiresInDays'>>;
type RequestEvent =
  | ({ type: 'APPROVE' } & Choice)
  | { type: 'DENY' }
  | { type: 'WAIT_299_S' }
  | { type: 'WAIT_1_S' }
  | { type: 'WAIT_5_MIN' };

const requestModel = setup({
  types: {
    context: {} as { waitedS: number; choice?: Choice },
    events: {} as RequestEvent,
  },
  guards: {
    fresh: ({ context }) => context.waitedS === 0,
    atTheEdge: ({ context }) => context.waitedS === 299,
  },
}).createMachine({
  id: 'pairingRequestModel',
  context: { waitedS: 0 },
  initial: 'awaitingApproval',
  states: {
    awaitingApproval: {
      on: {
        APPROVE: {
          target: 'codePending',
          actions: assign({ choice: ({ event }) => ({ level: event.level, expiresInDays: event.expiresInDays }) }),
        },
        DENY: 'denied',
        WAIT_299_S: { guard: 'fresh', actions: assign({ waitedS: 299 }) },
        WAIT_1_S: { guard: 'atTheEdge', target: 'expired', actions: assign({ waitedS: 300 }) },
        WAIT_5_MIN: { guard: 'fresh', target: 'expired', actions: assign({ waitedS: 300 }) },
      },
    },
    codePending: { type: 'final' },
    denied: { type: 'final' },
    expired: { type: 'final' },
  },
});

type ModelState = SnapshotFrom<typeof requestModel>;

/** What the sheet's Approve sends: the defaults, a narrower level with a short expiry, a wider one that never expires. */
const approveCases: RequestEvent[] = [
  { type: 'APPROVE' },
  { type: 'APPROVE', level: 'readOnly', expiresInDays: 1 },
  { type: 'APPROVE', level: 'fullAccess', expiresInDays: null },
];

const paths = reachablePaths(requestModel, approveCases);
const { shortest } = paths;

async function runPath(path: (typeof shortest)[number]): Promise<void> {
  const h = await PairingHarness.start();
  try {
    const pairing = h.open(REQUESTED_LEVEL);
    const checks = stateChecks(h, pairing);
    checks.awaitingApproval(requestModel.resolveState({ value: 'awaitingApproval', context: { waitedS: 0 } }));
    await path.test({
      states: checks,
      events: {
        APPROVE: (step) => {
          // The executor's type keeps only `type`; the step carries the whole event (the sheet's choice).
          const event = step.event as Extract<RequestEvent, { type: 'APPROVE' }>;
          const chosen: Partial<ApprovalChoice> = {};
          if (event.level !== undefined) chosen.level = event.level;
          if (event.expiresInDays !== undefined) chosen.expiresInDays = event.expiresInDays;
          expect(h.app.pairing.approve(pairing.sheetId, chosen)).toMatchObject({ ok: true });
        },
        DENY: () => {
          expect(h.app.pairing.deny(pairing.sheetId)).toEqual({ ok: true });
        },
        WAIT_299_S: () => h.clock.advance(299_000),
        WAIT_1_S: () => h.clock.advance(1_000),
        WAIT_5_MIN: () => h.clock.advance(5 * MIN),
      },
    });
    // Every path ends in a final state of the request; a code it left behind expires and is forgotten
    // within 15 minutes, after which nothing of the pairing is alive and no timer is left.
    h.clock.advance(15 * MIN);
    expect(h.app.liveActors()).toBe(h.baseline);
    expect(h.clock.pendingTimers()).toBe(h.baselineTimers);
  } finally {
    await h.dispose();
  }
}

function refusesAnswers(h: PairingHarness, pairing: ClientPairing): void {
  const callbacksBefore = h.callbacks(pairing).length;
  const tokensBefore = h.app.tokens.list().length;
  expect(h.app.pairing.approve(pairing.sheetId)).toMatchObject({ ok: false });
  expect(h.app.pairing.deny(pairing.sheetId)).toMatchObject({ ok: false });
  expect(h.callbacks(pairing)).toHaveLength(callbacksBefore);
  expect(h.app.tokens.list()).toHaveLength(tokensBefore);
}

const auditRows = (h: PairingHarness, action: string) =>
  h.app.activity.list({ category: 'auth' }).filter((row) => row.action === action);

function stateChecks(h: PairingHarness, pairing: ClientPairing) {
  return {
    awaitingApproval: (state: ModelState) => {
      const sheets = h.app.pairing.approvals();
      expect(sheets.map((s) => s.id)).toEqual([pairing.sheetId]);
      expect(sheets[0]).toMatchObject({
        kind: 'pairing',
        requestedLevel: REQUESTED_LEVEL,
        redirect: pairing.redirect,
        secondsLeft: 300 - state.context.waitedS,
      });
      expect(h.app.liveActors()).toBe(h.baseline + 1);
      expect(h.callbacks(pairing)).toEqual([]);
      expect(h.app.tokens.list()).toEqual([]);
    },
    codePending: (state: ModelState) => {
      expect(h.sheetIds()).toEqual([]);
      const [callback, ...more] = h.callbacks(pairing);
      expect(more).toEqual([]);
      expect([...callback!.searchParams.keys()]).toEqual(['code']);
      expect(callback!.searchParams.get('code')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      // The request is over; its code is the one live thing.
      expect(h.app.liveActors()).toBe(h.baseline + 1);
      // The token the sheet chose was minted (and only that one).
      const tokens = h.app.tokens.list();
      expect(tokens).toHaveLength(1);
      const chosen = state.context.choice ?? {};
      const days = chosen.expiresInDays === undefined ? 30 : chosen.expiresInDays;
      expect(tokens[0]).toMatchObject({ name: `Model client ${pairing.n}`, level: chosen.level ?? REQUESTED_LEVEL, connections: 'all' });
      expect(tokens[0]!.expiresAt).toBe(days === null ? undefined : new Date(h.clock.now() + days * DAY_MS).toISOString());
      expect(auditRows(h, 'pairing.approved')).toMatchObject([{ outcome: 'success', token_id: tokens[0]!.id }]);
      refusesAnswers(h, pairing);
    },
    denied: () => {
      expect(h.sheetIds()).toEqual([]);
      const callbacks = h.callbacks(pairing);
      expect(callbacks).toHaveLength(1);
      expect(Object.fromEntries(callbacks[0]!.searchParams)).toEqual({ error: 'denied', error_description: 'user_denied' });
      expect(h.app.liveActors()).toBe(h.baseline);
      expect(h.app.tokens.list()).toEqual([]);
      expect(auditRows(h, 'pairing.denied')).toMatchObject([{ outcome: 'denied', client_name: `Model client ${pairing.n}` }]);
      refusesAnswers(h, pairing);
    },
    expired: () => {
      expect(h.sheetIds()).toEqual([]);
      expect(h.callbacks(pairing)).toEqual([]);
      expect(h.app.liveActors()).toBe(h.baseline);
      expect(h.app.tokens.list()).toEqual([]);
      refusesAnswers(h, pairing);
      // Pairing failures are in the activity log: auth / denied.
      expect(auditRows(h, 'pairing.expired')).toMatchObject([{ outcome: 'denied' }]);
    },
  };
}

describe('pairing request model (xstate/graph, timer-free) against the real app', () => {
  it('the model covers every state of the contract table', () => {
    const reached = new Set(shortest.flatMap((p) => p.steps.map((s) => String(s.state.value))));
    expect([...reached].sort()).toEqual(['awaitingApproval', 'codePending', 'denied', 'expired']);
  });

  // The request model is acyclic, so its simple paths are its shortest ones; any extra would run here.
  describePaths('pairingRequest', paths, runPath);
});
