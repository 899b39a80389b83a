import { describe, expect, it } from 'vitest';
import { assign, setup, SimulatedClock, type SnapshotFrom } from 'xstate';
import { type Caller, type Ending, type Flight, InflightHarness, type Reply, TOOL_ERROR_TEXT } from '../helpers/inflightHarness.js';
import { describePaths, reachablePaths } from '../helpers/modelPaths.js';

/**
 * Model-based test of the contract's "Request in flight" table (machines/inflightRequest.ts): a running
 * request completes or fails with its handler, or ends first, cancelled by its own caller or by revoking
 * its token (-33002), at the 330 s handler deadline (-33003), or when its client goes away (found by the
 * once-a-second poll). Another token's cancel of the same id leaves it running.
 *
 * The model has no timers: DEADLINE moves the app's SimulatedClock by 329 999 ms (still running, checked)
 * and then 1 ms; DISCONNECT drops the connection, waits until the server saw it close, and moves the clock
 * one poll period (999 ms: still running, checked; then 1 ms). Every path runs against a fresh real app
 * with authentication on, calling a test-only tool that the test ends as the event says:
 *
 * - COMPLETE: the tool resolves → HTTP 200 result;
 * - FAIL (tool): it throws a ToolError → HTTP 200 result with `isError` and `query_failed: …`;
 * - FAIL (plain): it throws a plain Error → HTTP 200 result with `isError` and `internal_failure: …`
 *   (tools/call maps any untyped error to the `internal_failure` tool error: contract, Tool errors 2 and 4);
 * - FAIL (internal): it throws ProtocolError -32603 → HTTP 500 `-32603` (the actor's `failed` state).
 */

/** The contract's handler deadline (Limits), spelled out rather than imported from the machine under test. */
const DEADLINE_MS = 330_000;

type Failure = 'tool' | 'plain' | 'internal';
type ModelEvent =
  | { type: 'COMPLETE' }
  | { type: 'FAIL'; failure: Failure }
  | { type: 'CANCEL_OWN' }
  | { type: 'CANCEL_OTHER' }
  | { type: 'REVOKE' }
  | { type: 'DEADLINE' }
  | { type: 'DISCONNECT' };

type ModelContext = { otherCancels: number; failure?: Failure; cancelledBy?: 'own' | 'revoke' };

const inflightModel = setup({
  types: { context: {} as ModelContext, events: {} as ModelEvent },
  guards: {
    // One foreign cancel per path is enough to reach "running after a foreign cancel" and every end from there.
    noForeignCancelYet: ({ context }) => context.otherCancels === 0,
  },
}).createMachine({
  id: 'inflightRequestModel',
  context: { otherCancels: 0 },
  initial: 'running',
  states: {
    running: {
      on: {
        COMPLETE: 'completed',
        FAIL: { target: 'failed', actions: assign({ failure: ({ event }) => event.failure }) },
        CANCEL_OWN: { target: 'cancelled', actions: assign({ cancelledBy: 'own' as const }) },
        CANCEL_OTHER: { guard: 'noForeignCancelYet', actions: assign({ otherCancels: 1 }) },
        REVOKE: { target: 'cancelled', actions: assign({ cancelledBy: 'revoke' as const }) },
        DEADLINE: 'timedOut',
        DISCONNECT: 'disconnected',
      },
    },
    completed: { type: 'final' },
    failed: { type: 'final' },
    cancelled: { type: 'final' },
    timedOut: { type: 'final' },
    disconnected: { type: 'final' },
  },
});

type ModelState = SnapshotFrom<typeof inflightModel>;
type ModelPath = (typeof paths.shortest)[number];

const failureCases: ModelEvent[] = [
  { type: 'COMPLETE' },
  { type: 'FAIL', failure: 'tool' },
  { type: 'FAIL', failure: 'plain' },
  { type: 'FAIL', failure: 'internal' },
  { type: 'CANCEL_OWN' },
  { type: 'CANCEL_OTHER' },
  { type: 'REVOKE' },
  { type: 'DEADLINE' },
  { type: 'DISCONNECT' },
];

const paths = reachablePaths(inflightModel, failureCases);
const { shortest } = paths;

const ENDINGS: Record<Failure, Ending> = { tool: 'toolError', plain: 'plainError', internal: 'internalError' };
const REQUEST_ID = 42;

type Run = { h: InflightHarness; clock: SimulatedClock; owner: Caller; other: Caller; flight: Flight };

async function runPath(path: ModelPath): Promise<void> {
  const clock = new SimulatedClock();
  const h = await InflightHarness.start({ clock });
  try {
    const owner = h.mint('owner');
    const other = h.mint('other');
    // The other token has a request with the same id, held until the end: it must outlive everything.
    const bystander = await h.hold(other, REQUEST_ID);
    const flight = await h.hold(owner, REQUEST_ID);
    const run: Run = { h, clock, owner, other, flight };
    const checks = stateChecks(run, bystander);

    await path.test({
      states: checks,
      events: {
        COMPLETE: () => h.tool.end(flight.key, 'resolve'),
        FAIL: (step) => h.tool.end(flight.key, ENDINGS[(step.event as Extract<ModelEvent, { type: 'FAIL' }>).failure]),
        CANCEL_OWN: async () => expectAccepted(await h.cancel(owner, REQUEST_ID, 'model: own cancel')),
        CANCEL_OTHER: async () => expectAccepted(await h.cancel(h.mint('stranger'), REQUEST_ID, 'model: foreign cancel')),
        REVOKE: () => h.revoke(owner),
        DEADLINE: async () => {
          clock.increment(DEADLINE_MS - 1);
          await expectStillRunning(run);
          clock.increment(1);
        },
        DISCONNECT: async () => {
          await flight.drop();
          // No time has passed since the last poll was armed (or it was re-armed at the last increment).
          clock.increment(999);
          await expectStillRunning(run, true);
          clock.increment(1);
        },
      },
    });

    // Whatever ended the owner's request, the other token's request with the same id still runs.
    // (DEADLINE moved the clock 330 s: the bystander, started just before, timed out with it.)
    const last = path.state.value;
    if (last === 'timedOut') {
      expect((await bystander.answer()).message).toMatchObject({ id: REQUEST_ID, error: { code: -33003 } });
    } else {
      expect(h.tool.isHeld(bystander.key)).toBe(true);
      h.tool.end(bystander.key);
      expect((await bystander.answer()).message).toMatchObject({ id: REQUEST_ID, result: { structuredContent: { key: bystander.key } } });
    }
    expect(h.app.liveActors()).toBe(h.baseline);
    expect(h.tool.held()).toBe(0);
  } finally {
    await h.dispose();
  }
}

function expectAccepted(reply: Reply): void {
  expect({ status: reply.status, text: reply.text }).toEqual({ status: 202, text: '' });
}

/** The owner's call is still held, its signal quiet, and (unless the client dropped it) unanswered. */
async function expectStillRunning({ h, flight }: Run, dropped = false): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect(h.tool.isHeld(flight.key)).toBe(true);
  expect(h.tool.aborted(flight.key)).toBe(false);
  if (!dropped) expect(flight.settled).toBe(false);
}

function expectError(reply: Reply, status: number, code: number): void {
  expect(reply.contentType).toMatch(/^application\/json/);
  expect({ status: reply.status, code: reply.message?.error?.code }).toEqual({ status, code });
  expect(Object.keys(reply.message).sort()).toEqual(['error', 'id', 'jsonrpc']);
  expect(reply.message.id).toBe(REQUEST_ID);
}

function expectResult(reply: Reply): Record<string, any> {
  expect(reply.status).toBe(200);
  expect(Object.keys(reply.message).sort()).toEqual(['id', 'jsonrpc', 'result']);
  expect(reply.message.id).toBe(REQUEST_ID);
  expect(reply.message.result.resultType).toBe('complete');
  return reply.message.result;
}

function stateChecks(run: Run, bystander: Flight) {
  const { h, flight } = run;
  /** A final state: the owner's actor is gone (only the bystander's is left) and its handler is over. */
  const ended = (aborted: boolean) => {
    expect(h.app.liveActors()).toBe(h.baseline + (h.tool.isHeld(bystander.key) ? 1 : 0));
    expect(h.tool.isHeld(flight.key)).toBe(false);
    expect(h.tool.aborted(flight.key), 'the handler’s AbortSignal fired').toBe(aborted);
  };
  return {
    running: async (state: ModelState) => {
      expect(h.app.liveActors()).toBe(h.baseline + 2);
      await expectStillRunning(run);
      expect(state.context.otherCancels).toBeLessThanOrEqual(1);
    },
    completed: async () => {
      const result = expectResult(await flight.answer());
      expect(result).toMatchObject({ isError: false, structuredContent: { key: flight.key } });
      ended(false);
    },
    failed: async (state: ModelState) => {
      const reply = await flight.answer();
      if (state.context.failure === 'internal') {
        expectError(reply, 500, -32603);
      } else {
        const result = expectResult(reply);
        expect(result.isError).toBe(true);
        expect(result.content).toHaveLength(1);
        expect(result.content[0].text).toBe(
          state.context.failure === 'tool' ? TOOL_ERROR_TEXT : 'internal_failure: the tool failed unexpectedly',
        );
      }
      ended(false);
    },
    cancelled: async () => {
      expectError(await flight.answer(), 200, -33002);
      ended(true);
    },
    timedOut: async () => {
      expectError(await flight.answer(), 200, -33003);
      ended(true);
    },
    disconnected: async () => {
      expect(await flight.reply).toBe('dropped');
      ended(true);
    },
  };
}

describe('in-flight request model (xstate/graph, timer-free) against the real app', () => {
  it('the model reaches every state of the machine, and both ways to be cancelled', () => {
    const reached = new Set(shortest.flatMap((p) => [p.state, ...p.steps.map((s) => s.state)]).map((s) => String(s.value)));
    expect([...reached].sort()).toEqual(['cancelled', 'completed', 'disconnected', 'failed', 'running', 'timedOut']);
    const cancelledBy = new Set(shortest.filter((p) => p.state.value === 'cancelled').map((p) => p.state.context.cancelledBy));
    expect([...cancelledBy].sort()).toEqual(['own', 'revoke']);
  });

  describePaths('inflightRequest', paths, runPath);
});
