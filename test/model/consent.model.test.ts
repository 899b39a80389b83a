import { describe, expect, it } from 'vitest';
import { assign, setup, SimulatedClock, type SnapshotFrom } from 'xstate';
import type { ConsentDialog } from '../../src/runtime/consentDialogs.js';
import { type Caller, type Flight, InflightHarness, type Reply } from '../helpers/inflightHarness.js';
import { describePaths, reachablePaths } from '../helpers/modelPaths.js';

/**
 * Model-based test of machines/consent.ts, the confirmation dialog of a blocked write ("Tool call needing
 * approval": a write from a client without `elicitation` waits on a dialog in Sluice): asking → approved
 * (the write runs: a result with rows_affected), denied (tool error `denied: …`), or abandoned because the
 * request it belongs to ended first: cancelled by its caller or by revoking its token (-33002), past the
 * 330 s handler deadline (-33003), or its client gone (found by the 1 s poll).
 *
 * Timer-free: WAIT_1_MIN and DEADLINE move the app's SimulatedClock (the dialog's "waiting" seconds and
 * the request's deadline; 329 999 ms is checked to be not enough). Every path runs against a fresh real
 * app: `execute_query` with an UPDATE on `demo`, answered through `app.dialogs` as the console would. After
 * each step the dialog list, the answer, the live actors and the database itself are checked: only an
 * approved statement changes the row.
 */

/** The contract's handler deadline (Limits), spelled out rather than imported from the machine under test. */
const DEADLINE_MS = 330_000;

type ModelEvent =
  | { type: 'APPROVE' }
  | { type: 'DENY' }
  | { type: 'CANCEL' }
  | { type: 'REVOKE' }
  | { type: 'DEADLINE' }
  | { type: 'DISCONNECT' }
  | { type: 'WAIT_1_MIN' };

type AbandonedBy = 'cancel' | 'revoke' | 'deadline' | 'disconnect';
type ModelContext = { waitedS: number; abandonedBy?: AbandonedBy };

const consentModel = setup({
  types: { context: {} as ModelContext, events: {} as ModelEvent },
  guards: { fresh: ({ context }) => context.waitedS === 0 },
}).createMachine({
  id: 'consentModel',
  context: { waitedS: 0 },
  initial: 'asking',
  states: {
    asking: {
      on: {
        APPROVE: 'approved',
        DENY: 'denied',
        CANCEL: { target: 'abandoned', actions: assign({ abandonedBy: 'cancel' as const }) },
        REVOKE: { target: 'abandoned', actions: assign({ abandonedBy: 'revoke' as const }) },
        DEADLINE: { target: 'abandoned', actions: assign({ abandonedBy: 'deadline' as const }) },
        DISCONNECT: { target: 'abandoned', actions: assign({ abandonedBy: 'disconnect' as const }) },
        WAIT_1_MIN: { guard: 'fresh', actions: assign({ waitedS: 60 }) },
      },
    },
    approved: { type: 'final' },
    denied: { type: 'final' },
    abandoned: { type: 'final' },
  },
});

type ModelState = SnapshotFrom<typeof consentModel>;
type ModelPath = (typeof paths.shortest)[number];

const paths = reachablePaths(consentModel);
const { shortest } = paths;

const WRITE_SQL = 'UPDATE customers SET marketing_opt_in = 1 - marketing_opt_in WHERE id = 1';
const READ_SQL = 'SELECT marketing_opt_in FROM customers WHERE id = 1';
const REQUEST_ID = 'write-1';

type Run = {
  h: InflightHarness;
  clock: SimulatedClock;
  writer: Caller;
  reader: Caller;
  flight: Flight;
  dialog: ConsentDialog;
  before: number;
};

async function optIn(h: InflightHarness, reader: Caller): Promise<number> {
  const reply = await h.call(reader, 'read', 'execute_query', { connection_id: 'demo', sql: READ_SQL }).answer();
  expect(reply.message?.result?.isError, JSON.stringify(reply.message)).toBe(false);
  return reply.message.result.structuredContent.rows[0][0] as number;
}

async function runPath(path: ModelPath): Promise<void> {
  const clock = new SimulatedClock();
  const h = await InflightHarness.start({ clock });
  try {
    const writer = h.mint('writer', 'readWrite');
    const reader = h.mint('reader', 'readOnly');
    const before = await optIn(h, reader);
    const flight = h.call(writer, REQUEST_ID, 'execute_query', { connection_id: 'demo', sql: WRITE_SQL });
    await expect.poll(() => h.app.dialogs.list().length, { timeout: 5_000, interval: 5 }).toBe(1);
    const run: Run = { h, clock, writer, reader, flight, dialog: h.app.dialogs.list()[0]!, before };
    let waitedMs = 0;

    await path.test({
      states: stateChecks(run),
      events: {
        APPROVE: () => expect(h.app.dialogs.answer(run.dialog.id, 'approve')).toBe(true),
        DENY: () => expect(h.app.dialogs.answer(run.dialog.id, 'deny')).toBe(true),
        CANCEL: async () => {
          const notified = await h.cancel(writer, REQUEST_ID, 'model: cancel');
          expect({ status: notified.status, text: notified.text }).toEqual({ status: 202, text: '' });
        },
        REVOKE: () => h.revoke(writer),
        WAIT_1_MIN: () => {
          clock.increment(60_000);
          waitedMs += 60_000;
        },
        DEADLINE: async () => {
          clock.increment(DEADLINE_MS - waitedMs - 1);
          await expectAsking(run);
          clock.increment(1);
        },
        DISCONNECT: async () => {
          await flight.drop();
          // The last poll was armed at the last clock move: 1 s from now it looks again.
          clock.increment(999);
          await expectAsking(run, true);
          clock.increment(1);
        },
      },
    });
    expect(h.app.liveActors()).toBe(h.baseline);
    expect(h.app.dialogs.list()).toEqual([]);
  } finally {
    await h.dispose();
  }
}

/** The dialog is still waiting for the user; the request is still blocked on it. */
async function expectAsking(run: Run, dropped = false, waitedS?: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 10));
  const dialogs = run.h.app.dialogs.list();
  expect(dialogs.map((d) => d.id)).toEqual([run.dialog.id]);
  if (waitedS !== undefined) expect(dialogs[0]!.waitingSeconds).toBe(waitedS);
  // The in-flight request and its dialog.
  expect(run.h.app.liveActors()).toBe(run.h.baseline + 2);
  if (!dropped) expect(run.flight.settled).toBe(false);
}

function expectError(reply: Reply, code: number): void {
  expect(reply.contentType).toMatch(/^application\/json/);
  expect({ status: reply.status, code: reply.message?.error?.code }).toEqual({ status: 200, code });
  expect(Object.keys(reply.message).sort()).toEqual(['error', 'id', 'jsonrpc']);
  expect(reply.message.id).toBe(REQUEST_ID);
}

function stateChecks(run: Run) {
  const { h, flight, dialog } = run;
  /** A final state: no dialog is left, nothing is alive, and a late answer finds no dialog. */
  const over = async (changed: boolean) => {
    expect(h.app.dialogs.list()).toEqual([]);
    expect(h.app.liveActors()).toBe(h.baseline);
    expect(h.app.dialogs.answer(dialog.id, 'approve')).toBe(false);
    expect(h.app.dialogs.answer(dialog.id, 'deny')).toBe(false);
    expect(await optIn(h, run.reader)).toBe(changed ? 1 - run.before : run.before);
  };
  return {
    asking: async (state: ModelState) => {
      expect(dialog).toEqual({
        id: expect.any(String),
        kind: 'statement',
        clientName: 'writer',
        clientNameDeclared: false,
        tokenName: 'writer',
        tokenLevel: 'readWrite',
        connectionId: 'demo',
        connectionName: 'Demo bookshop',
        engine: 'sqlite',
        database: expect.stringMatching(/demo\.sqlite$/),
        tool: 'execute_query',
        statementKind: 'write',
        statementReason: 'UPDATE changes data',
        statement: WRITE_SQL,
        params: [],
        placeholders: 'positional',
        effect: expect.objectContaining({ rows: 1, basis: 'exact' }),
        undo: { possible: true },
        waitingSeconds: 0,
      });
      await expectAsking(run, false, state.context.waitedS);
      // The statement has not run while the user is asked.
      expect(await optIn(h, run.reader)).toBe(run.before);
    },
    approved: async () => {
      const reply = await flight.answer();
      expect(reply.status).toBe(200);
      expect(reply.message).toMatchObject({
        id: REQUEST_ID,
        result: {
          resultType: 'complete',
          isError: false,
          structuredContent: { rows_affected: 1, row_count: 0, statement_kind: 'write' },
        },
      });
      await over(true);
    },
    denied: async () => {
      const reply = await flight.answer();
      expect(reply.status).toBe(200);
      expect(reply.message).toMatchObject({ id: REQUEST_ID, result: { resultType: 'complete', isError: true } });
      expect(reply.message.result.content).toHaveLength(1);
      expect(reply.message.result.content[0].text).toMatch(/^denied: /);
      await over(false);
    },
    abandoned: async (state: ModelState) => {
      const by = state.context.abandonedBy;
      if (by === 'disconnect') expect(await flight.reply).toBe('dropped');
      else expectError(await flight.answer(), by === 'deadline' ? -33003 : -33002);
      await over(false);
    },
  };
}

describe('consent dialog model (xstate/graph, timer-free) against the real app', () => {
  it('the model reaches every state, and every way to abandon a dialog', () => {
    const reached = new Set(shortest.flatMap((p) => [p.state, ...p.steps.map((s) => s.state)]).map((s) => String(s.value)));
    expect([...reached].sort()).toEqual(['abandoned', 'approved', 'asking', 'denied']);
    const by = new Set(shortest.filter((p) => p.state.value === 'abandoned').map((p) => p.state.context.abandonedBy));
    expect([...by].sort()).toEqual(['cancel', 'deadline', 'disconnect', 'revoke']);
  });

  describePaths('consent', paths, runPath);
});
