import { expect } from 'vitest';
import { assign, setup, type SnapshotFrom } from 'xstate';
import { type EventStream, listen } from '../helpers/eventStream.js';
import { describePaths, reachablePaths } from '../helpers/modelPaths.js';
import { SteppingClock } from '../helpers/steppingClock.js';
import { callTool, mirroredHeaders, modernMeta, post, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * Model-based test of machines/subscription.ts, a `subscriptions/listen` stream ("Events" in the
 * contract): listening, with a `:` keep-alive every 15 s and no handler deadline, until its caller
 * cancels it (`notifications/cancelled`), its token is revoked, the server stops — each answered with the
 * final `complete` response on the stream — or the client goes away (found by the 1 s poll).
 *
 * Timer-free: KEEP_ALIVE and PAST_DEADLINE move the app's clock (a stepping SimulatedClock that fires
 * each timer at its own due time). Every path runs against a fresh real app with authentication on;
 * after each step the frames read, the live actors and whether the token still works are checked.
 */

/** The contract's numbers, spelled out rather than imported from the code under test. */
const KEEP_ALIVE_MS = 15_000;
const DEADLINE_MS = 330_000;
const SUB = 'io.modelcontextprotocol/subscriptionId';
const STREAM_ID = 'listen-1';

type ClosedBy = 'cancel' | 'revoke' | 'shutdown' | 'disconnect';
type ModelEvent = { type: 'KEEP_ALIVE' } | { type: 'PAST_DEADLINE' } | { type: 'CANCEL' } | { type: 'REVOKE' } | { type: 'SHUTDOWN' } | { type: 'DISCONNECT' };
type ModelContext = { keepAlives: number; pastDeadline: boolean; closedBy?: ClosedBy };

const closeBy = (by: ClosedBy) => ({ target: 'closed' as const, actions: { type: 'close' as const, params: { by } } });

const subscriptionModel = setup({
  types: { context: {} as ModelContext, events: {} as ModelEvent },
  guards: {
    fewKeepAlives: ({ context }) => context.keepAlives < 2,
    beforeDeadline: ({ context }) => !context.pastDeadline,
  },
  actions: {
    close: assign((_, { by }: { by: ClosedBy }) => ({ keepAlives: 0, pastDeadline: false, closedBy: by })),
  },
}).createMachine({
  id: 'subscriptionModel',
  context: { keepAlives: 0, pastDeadline: false },
  initial: 'listening',
  states: {
    listening: {
      on: {
        KEEP_ALIVE: { guard: 'fewKeepAlives', actions: assign({ keepAlives: ({ context }) => context.keepAlives + 1 }) },
        PAST_DEADLINE: { guard: 'beforeDeadline', actions: assign({ pastDeadline: true }) },
        CANCEL: closeBy('cancel'),
        REVOKE: closeBy('revoke'),
        SHUTDOWN: closeBy('shutdown'),
        DISCONNECT: closeBy('disconnect'),
      },
    },
    closed: { type: 'final' },
  },
});

type ModelState = SnapshotFrom<typeof subscriptionModel>;
type ModelPath = (typeof paths.shortest)[number];

const paths = reachablePaths(subscriptionModel);

type Run = {
  app: TestApp;
  clock: SteppingClock;
  baseline: number;
  tokenId: string;
  auth: Record<string, string>;
  client: AbortController;
  stream: EventStream;
  stopped?: Promise<void>;
};

async function expectComplete(stream: EventStream): Promise<void> {
  expect(await stream.next()).toEqual({
    jsonrpc: '2.0',
    id: STREAM_ID,
    result: { resultType: 'complete', _meta: { [SUB]: STREAM_ID, 'io.modelcontextprotocol/serverInfo': expect.objectContaining({ name: 'sluice' }) } },
  });
  expect(await stream.ended()).toBe(true);
}

/** Moves the clock `ms` forward and reads the keep-alives that time owes the stream, and nothing else. */
async function expectKeepAlives(run: Run, ms: number): Promise<void> {
  run.clock.advance(ms);
  for (let i = 0; i < Math.floor(ms / KEEP_ALIVE_MS); i++) expect(await run.stream.next()).toBe(':');
}

function stateChecks(run: Run) {
  return {
    listening: async () => {
      expect(run.app.liveActors()).toBe(run.baseline + 1);
      expect((await callTool(run.app, 'list_connections', {}, { headers: run.auth })).status).toBe(200);
    },
    closed: async (state: ModelState) => {
      const closedBy = state.context.closedBy as ClosedBy;
      if (closedBy === 'disconnect') {
        // Nobody tells the server; its poll finds the socket closed within a second.
        await expect.poll(() => (run.clock.advance(1_000), run.app.liveActors())).toBe(run.baseline);
      }
      expect(run.app.liveActors()).toBe(closedBy === 'shutdown' ? 0 : run.baseline);
      if (closedBy === 'shutdown') return;
      const status = (await callTool(run.app, 'list_connections', {}, { headers: run.auth })).status;
      expect(status).toBe(closedBy === 'revoke' ? 401 : 200);
    },
  };
}

async function runPath(path: ModelPath): Promise<void> {
  const clock = new SteppingClock();
  clock.set(Date.now());
  const app = await startTestApp({ auth: true, clock });
  const run = { app, clock } as Run;
  try {
    run.baseline = app.liveActors();
    const minted = app.tokens.mint({ name: 'listener', level: 'readOnly', connections: 'all', expiresInDays: null, now: clock.now() });
    run.tokenId = minted.record.id;
    run.auth = { authorization: `Bearer ${minted.plaintext}` };
    run.client = new AbortController();
    run.stream = await listen(app, STREAM_ID, {}, run.auth, run.client.signal);
    expect(run.stream.response.status).toBe(200);
    expect(await run.stream.next()).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { _meta: { [SUB]: STREAM_ID } } });

    await path.test({
      states: stateChecks(run),
      events: {
        KEEP_ALIVE: () => expectKeepAlives(run, KEEP_ALIVE_MS),
        // 330 s is the deadline of every other request; a subscription has none and keeps its keep-alives.
        PAST_DEADLINE: () => expectKeepAlives(run, DEADLINE_MS + KEEP_ALIVE_MS),
        CANCEL: async () => {
          const params = { requestId: STREAM_ID, _meta: modernMeta() };
          const body = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params });
          const res = await post(app.url, body, { ...mirroredHeaders('notifications/cancelled', params), ...run.auth });
          expect(res.status).toBe(202);
          await expectComplete(run.stream);
        },
        REVOKE: async () => {
          app.tokens.revoke(run.tokenId, clock.now());
          await expectComplete(run.stream);
        },
        SHUTDOWN: async () => {
          run.stopped = app.stop();
          await expectComplete(run.stream);
          await run.stopped;
        },
        DISCONNECT: async () => {
          run.client.abort();
          await run.stream.cancel();
        },
      },
    });
  } finally {
    await run.stream?.cancel();
    await app.dispose();
  }
}

describePaths('subscription', paths, runPath);
