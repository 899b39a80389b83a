import { expect } from 'vitest';
import { assign, setup, type SnapshotFrom } from 'xstate';
import { callControl } from '../../src/cli/controlClient.js';
import { type EngineFixture, heldSessions, startFixtureApp } from '../helpers/engines.js';
import { describePaths, reachablePaths } from '../helpers/modelPaths.js';
import { SteppingClock } from '../helpers/steppingClock.js';
import { callTool, type TestApp } from '../helpers/testApp.js';

/**
 * Model-based test of machines/heldRead.ts, the read held open behind a `next_cursor` (issue 30):
 * open while pages are read, each page starting its 5 minutes again, until its last page is read, it
 * expires, its token is revoked, its connection is removed or the server stops. After each step the
 * live actors and the PostgreSQL backends held in a transaction are checked, and a cursor of an ended
 * read is refused saying why. PostgreSQL is the engine whose driver holds reads.
 */

/** The numbers, spelled out rather than imported from the code under test. */
const IDLE_MS = 5 * 60_000;
const ROWS = 6;

type EndedBy = 'lastPage' | 'expiry' | 'revoke' | 'removal' | 'shutdown';
type ModelEvent = { type: 'PAGE' } | { type: 'ALMOST_IDLE' } | { type: 'LAST_PAGE' } | { type: 'IDLE' } | { type: 'REVOKE' } | { type: 'REMOVE' } | { type: 'SHUTDOWN' };
type ModelContext = { pages: number; almostIdle: boolean; endedBy?: EndedBy };

const endBy = (by: EndedBy) => ({ target: 'ended' as const, actions: { type: 'end' as const, params: { by } } });

const heldReadModel = setup({
  types: { context: {} as ModelContext, events: {} as ModelEvent },
  guards: { fewPages: ({ context }) => context.pages < 1, notYetAlmostIdle: ({ context }) => !context.almostIdle },
  actions: { end: assign((_, { by }: { by: EndedBy }) => ({ pages: 0, almostIdle: false, endedBy: by })) },
}).createMachine({
  id: 'heldReadModel',
  context: { pages: 0, almostIdle: false },
  initial: 'open',
  states: {
    open: {
      on: {
        PAGE: { guard: 'fewPages', actions: assign({ pages: ({ context }) => context.pages + 1, almostIdle: false }) },
        ALMOST_IDLE: { guard: 'notYetAlmostIdle', actions: assign({ almostIdle: true }) },
        LAST_PAGE: endBy('lastPage'),
        IDLE: endBy('expiry'),
        REVOKE: endBy('revoke'),
        REMOVE: endBy('removal'),
        SHUTDOWN: endBy('shutdown'),
      },
    },
    ended: { type: 'final' },
  },
});

type ModelState = SnapshotFrom<typeof heldReadModel>;
type ModelPath = (typeof paths.shortest)[number];

const paths = reachablePaths(heldReadModel);

type Run = { app: TestApp; fixture: EngineFixture; clock: SteppingClock; baseline: number; tokenId: string; auth: Record<string, string>; cursor: string; read: number };

const page = (run: Run, maxRows: number) => callTool(run.app, 'execute_query', { connection_id: 'db', cursor: run.cursor, max_rows: maxRows }, { headers: run.auth });

function stateChecks(run: Run) {
  return {
    open: async () => {
      expect(run.app.liveActors()).toBe(run.baseline + 1);
      expect(await heldSessions(run.fixture)).toBe(1);
    },
    ended: async (state: ModelState) => {
      const by = state.context.endedBy as EndedBy;
      await expect.poll(() => heldSessions(run.fixture)).toBe(0);
      expect(run.app.liveActors()).toBe(by === 'shutdown' ? 0 : run.baseline);
      if (by !== 'expiry') return;
      const refused = await page(run, 1);
      expect(refused.json.result.content[0].text).toBe('invalid_argument: the cursor expired: its read was closed 5 minutes after its last page; run the statement again');
    },
  };
}

async function runPath(path: ModelPath): Promise<void> {
  const clock = new SteppingClock();
  clock.set(Date.now());
  const { app, fixture, dispose } = await startFixtureApp('postgres', { auth: true, clock });
  const run = { app, fixture, clock, read: 0 } as Run;
  try {
    run.baseline = app.liveActors();
    const minted = app.tokens.mint({ name: 'reader', level: 'readOnly', connections: 'all', expiresInDays: null, now: clock.now() });
    run.tokenId = minted.record.id;
    run.auth = { authorization: `Bearer ${minted.plaintext}` };
    const first = await callTool(app, 'execute_query', { connection_id: 'db', sql: `SELECT g FROM generate_series(1, ${ROWS}) g`, max_rows: 1 }, { headers: run.auth });
    run.cursor = first.json.result.structuredContent.next_cursor;
    run.read = 1;
    await path.test({
      states: stateChecks(run),
      events: {
        PAGE: async () => {
          const next = (await page(run, 1)).json.result.structuredContent;
          run.read += 1;
          expect(next.rows).toEqual([[run.read]]);
          run.cursor = next.next_cursor;
        },
        ALMOST_IDLE: async () => clock.advance(IDLE_MS - 1_000),
        LAST_PAGE: async () => {
          const last = (await page(run, ROWS)).json.result.structuredContent;
          expect(last.rows.length).toBe(ROWS - run.read);
          expect(last).not.toHaveProperty('next_cursor');
        },
        IDLE: async () => clock.advance(IDLE_MS),
        REVOKE: async () => {
          app.tokens.revoke(run.tokenId, clock.now());
        },
        REMOVE: async () => {
          await callControl(app.dataDir, 'connections.remove', { id: 'db' });
        },
        SHUTDOWN: async () => {
          await app.stop();
        },
      },
    });
  } finally {
    await dispose();
  }
}

describePaths('heldRead', paths, runPath);
