import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { assign, setup, type SnapshotFrom } from 'xstate';
import { expectLegacySuccess, expectSessionOpened, initializeAs, legacyCall, openSession } from '../helpers/legacyProtocol.js';
import { type Minted, mintToken, type RawResponse, startTestApp, type TestApp } from '../helpers/testApp.js';
import { describePaths, reachablePaths } from '../helpers/modelPaths.js';
import { expectRpcError } from '../helpers/rpcAssertions.js';

/**
 * Model-based tests of the contract's "Legacy session" table (machines/legacySession.ts and the
 * supervisor's LRU), against the real server with authentication on.
 *
 * 1. A timer-free xstate/graph model of ONE session, owned by token A: active → evicted | closed.
 *    USE            a request with A (ping): 200 `{}`, and the session becomes the most recently used;
 *    USE_OTHER_TOKEN the same session under token B: 404 -33001, the session stays active and is NOT
 *                   touched (a refused request is not a use);
 *    OPEN_OTHERS    8 other sessions are initialized (token B): 16 initializes since the session's last
 *                   use evict it (two OPEN_OTHERS without a USE in between); with a USE in between it
 *                   survives and the oldest of the others goes instead;
 *    REVOKE         token A is revoked: the session is closed (A now hears 401 -33009; a new token finds
 *                   nothing there: -33001), the other token's sessions stay.
 *    The model counts the other live sessions, so `liveActors()` is checked exactly after every step.
 *    Every shortest path (and every further simple path) runs on a fresh app.
 *
 * 2. fast-check command sequences over many sessions and two tokens: initialize (with A or the current
 *    B, 1–6 at a time), use session k with its owner's token, use session k with the other token, revoke
 *    B (and mint a fresh B). An LRU model in the test predicts every answer (200 / 404 -33001 / 401
 *    -33009) and `liveActors()` = the number of live sessions. The per-address lockout (5 failed
 *    authentications) is kept out of the picture: a command that would be a 5th failure in a row is not
 *    generated, and every run starts a fresh app.
 */

const MAX_SESSIONS = 16;
const BATCH = 8;
const INVALID_TOKEN = 'Bearer realm="sluice", error="invalid_token"';

// ---------------------------------------------------------------------------------------------------
// 1. The model of one session.

type SessionEvent = { type: 'USE' } | { type: 'USE_OTHER_TOKEN' } | { type: 'OPEN_OTHERS' } | { type: 'REVOKE' };
/** `newer`: other sessions used more recently than ours; `others`: other sessions alive. */
type SessionContext = { newer: number; others: number };

const sessionModel = setup({
  types: { context: {} as SessionContext, events: {} as SessionEvent },
  guards: { evicts: ({ context }) => context.newer + BATCH >= MAX_SESSIONS },
  actions: { refused: () => {} },
}).createMachine({
  id: 'legacySessionModel',
  context: { newer: 0, others: 0 },
  initial: 'active',
  states: {
    active: {
      on: {
        USE: { actions: assign({ newer: 0 }) },
        // Answered -33001; nothing changes (an action, so that the traversal takes the event).
        USE_OTHER_TOKEN: { actions: 'refused' },
        OPEN_OTHERS: [
          { guard: 'evicts', target: 'evicted', actions: assign({ newer: 0, others: MAX_SESSIONS }) },
          {
            actions: assign(({ context }) => ({
              newer: context.newer + BATCH,
              // Ours stays, so the others keep at most fifteen places.
              others: Math.min(MAX_SESSIONS - 1, context.others + BATCH),
            })),
          },
        ],
        REVOKE: 'closed',
      },
    },
    evicted: { type: 'final' },
    closed: { type: 'final' },
  },
});

type ModelState = SnapshotFrom<typeof sessionModel>;
type ModelPath = (typeof paths.shortest)[number];

const paths = reachablePaths(sessionModel);
const { shortest, simple } = paths;

let requests = 0;

/** The server's LRU as the runner sees it: live session ids, least recently used first. */
class Lru {
  readonly live: string[] = [];
  readonly all: string[] = [];
  open(id: string): void {
    this.all.push(id);
    this.live.push(id);
    if (this.live.length > MAX_SESSIONS) this.live.shift();
  }
  touch(id: string): void {
    const at = this.live.indexOf(id);
    if (at >= 0) this.live.push(...this.live.splice(at, 1));
  }
  drop(ids: string[]): void {
    for (const id of ids) {
      const at = this.live.indexOf(id);
      if (at >= 0) this.live.splice(at, 1);
    }
  }
}

type PathRun = { app: TestApp; baseline: number; a: Minted; b: Minted; ours: string; lru: Lru; mine: string[] };

async function ping(app: TestApp, sessionId: string, token: Minted, id: string | number = 1): Promise<RawResponse> {
  requests++;
  return legacyCall(app, sessionId, 'ping', {}, token.headers, id);
}

async function runPath(path: ModelPath): Promise<void> {
  const app = await startTestApp({ auth: true });
  try {
    const baseline = app.liveActors();
    const a = mintToken(app, 'model owner A');
    const b = mintToken(app, 'model other B');
    const lru = new Lru();
    const ours = await openSession(app, a.headers);
    lru.open(ours);
    const run: PathRun = { app, baseline, a, b, ours, lru, mine: [ours] };

    await path.test({
      states: stateChecks(run),
      events: {
        USE: async () => {
          expect(expectLegacySuccess(await ping(app, ours, a, 'use'), 'use')).toEqual({});
          lru.touch(ours);
        },
        USE_OTHER_TOKEN: async () => {
          expectRpcError(await ping(app, ours, b, 'other'), 404, -33001, 'other');
        },
        OPEN_OTHERS: async () => {
          for (let i = 0; i < BATCH; i++) {
            requests++;
            lru.open(await openSession(app, b.headers));
          }
        },
        REVOKE: () => {
          app.tokens.revoke(a.id, Date.now());
          lru.drop(run.mine);
        },
      },
    });

    // The path's end: the runner's LRU says exactly which sessions are alive (a ping touches, but
    // nothing is opened any more, so nothing is evicted by checking).
    expect(app.liveActors()).toBe(baseline + lru.live.length);
    for (const id of lru.all) {
      const owner = run.mine.includes(id) ? run.a : b;
      const res = await ping(app, id, owner, 'end');
      if (owner === a && app.tokens.get(a.id)?.revokedAt !== undefined) expectRpcError(res, 401, -33009, 'end');
      else if (lru.live.includes(id)) expectLegacySuccess(res, 'end');
      else expectRpcError(res, 404, -33001, 'end');
    }
  } finally {
    await app.dispose();
  }
}

function stateChecks(run: PathRun) {
  const { app, baseline, b, lru } = run;
  return {
    active: async (state: ModelState) => {
      const { newer, others } = state.context;
      expect(app.liveActors()).toBe(baseline + 1 + others);
      expect(lru.live.length).toBe(1 + others);
      expect(lru.live.length - 1 - lru.live.indexOf(run.ours)).toBe(newer);
      // Another token is refused and does not touch it.
      expectRpcError(await ping(app, run.ours, b, 'peek'), 404, -33001, 'peek');
      // The owner is answered; only when ours is already the most recently used, so that this check
      // does not reorder the LRU behind the model's back.
      if (newer === 0) expect(expectLegacySuccess(await ping(app, run.ours, run.a, 'own'), 'own')).toEqual({});
    },
    evicted: async (state: ModelState) => {
      expect(state.context.others).toBe(MAX_SESSIONS);
      expect(app.liveActors()).toBe(baseline + MAX_SESSIONS);
      expect(lru.live).not.toContain(run.ours);
      // Its next request hears -33001, and so does the one after: the client must initialize again.
      expectRpcError(await ping(app, run.ours, run.a, 'gone'), 404, -33001, 'gone');
      expectRpcError(await ping(app, run.ours, run.a, 'gone'), 404, -33001, 'gone');
      expectRpcError(await ping(app, run.ours, b, 'gone'), 404, -33001, 'gone');
      const again = await openSession(app, run.a.headers);
      lru.open(again);
      run.mine.push(again);
      expect(expectLegacySuccess(await ping(app, again, run.a))).toEqual({});
      lru.touch(again);
      expect(app.liveActors()).toBe(baseline + MAX_SESSIONS);
    },
    closed: async (state: ModelState) => {
      expect(app.liveActors()).toBe(baseline + state.context.others);
      const refused = await ping(app, run.ours, run.a, 'revoked');
      expectRpcError(refused, 401, -33009, 'revoked');
      expect(refused.headers.get('www-authenticate')).toBe(INVALID_TOKEN);
      const init = await initializeAs(app, run.a.headers);
      expectRpcError(init, 401, -33009, 'init');
      // Closed, not hidden: a new token of the same user finds nothing under that id.
      const renewed = mintToken(app, 'model owner A (new)');
      expectRpcError(await ping(app, run.ours, renewed, 'renewed'), 404, -33001, 'renewed');
      expectRpcError(await ping(app, run.ours, b, 'renewed'), 404, -33001, 'renewed');
      expect(app.liveActors()).toBe(baseline + state.context.others);
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// 2. fast-check command sequences.

const NUM_RUNS = 40;
const MAX_COMMANDS = 40;
/** Failed authentications in a row from this address; the fifth would lock it out on the sixth. */
const MAX_FAILURES = 4;

type Holder = { label: string; token: Minted; revoked: boolean };
type Session = { id: string; owner: Holder };
type Model = {
  /** Live sessions, least recently used first. */
  lru: string[];
  /** Sessions evicted from the LRU, in the order it happened. */
  evicted: string[];
  sessions: Session[];
  a: Holder;
  b: Holder;
  /** Failed authentications in a row. */
  failures: number;
  bGeneration: number;
};
type Real = { app: TestApp; baseline: number };

const seen = new Map<string, number>();
const tally = (what: string) => seen.set(what, (seen.get(what) ?? 0) + 1);
let runs = 0;
let commands = 0;

function invariants(m: Model, r: Real): void {
  expect(r.app.liveActors()).toBe(r.baseline + m.lru.length);
}

type Cmd = fc.AsyncCommand<Model, Real>;

class Initialize implements Cmd {
  constructor(
    readonly who: 'A' | 'B',
    readonly count: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const owner = this.who === 'A' ? m.a : m.b;
    for (let i = 0; i < this.count; i++) {
      const id = expectSessionOpened(await initializeAs(r.app, owner.token.headers));
      expect(m.sessions.map((s) => s.id)).not.toContain(id);
      m.sessions.push({ id, owner });
      m.lru.push(id);
      if (m.lru.length > MAX_SESSIONS) {
        m.evicted.push(m.lru.shift()!);
        tally('eviction');
      }
      m.failures = 0;
      commands++;
    }
    tally(`initialize ${this.who}`);
    invariants(m, r);
  }
  toString = () => `initialize(${this.who} ×${this.count})`;
}

const USE_METHODS = ['ping', 'tools/list', 'logging/setLevel'] as const;

/** Which session a use picks: any (by index), the least recently used live one, the last one evicted. */
type Target = { kind: 'any'; pick: number } | { kind: 'leastRecent' } | { kind: 'lastEvicted' };

function targetOf(m: Readonly<Model>, target: Target): Session | undefined {
  if (target.kind === 'any') return m.sessions[target.pick % m.sessions.length];
  if (target.kind === 'leastRecent') return m.sessions.find((s) => s.id === m.lru[0]);
  return m.sessions.find((s) => s.id === m.evicted.at(-1));
}

const targetName = (target: Target) => (target.kind === 'any' ? `#${target.pick}` : target.kind);

class Use implements Cmd {
  constructor(
    readonly target: Target,
    readonly method: (typeof USE_METHODS)[number],
  ) {}
  check = (m: Readonly<Model>) => {
    const s = targetOf(m, this.target);
    return s !== undefined && (!s.owner.revoked || m.failures < MAX_FAILURES);
  };
  async run(m: Model, r: Real) {
    const s = targetOf(m, this.target)!;
    const params = this.method === 'logging/setLevel' ? { level: 'warning' } : {};
    const res = await legacyCall(r.app, s.id, this.method, params, s.owner.token.headers, 'use');
    commands++;
    if (s.owner.revoked) {
      tally('use → 401 (owner revoked)');
      expectRpcError(res, 401, -33009, 'use');
      expect(res.headers.get('www-authenticate')).toBe(INVALID_TOKEN);
      m.failures++;
    } else if (m.lru.includes(s.id)) {
      tally('use → 200');
      const result = expectLegacySuccess(res, 'use');
      if (this.method === 'tools/list') expect(result.tools.length).toBeGreaterThan(0);
      else expect(result).toEqual({});
      m.lru.splice(m.lru.indexOf(s.id), 1);
      m.lru.push(s.id);
      m.failures = 0;
    } else {
      tally('use → 404 -33001 (evicted)');
      expectRpcError(res, 404, -33001, 'use');
      m.failures = 0;
    }
    invariants(m, r);
  }
  toString = () => `use(${targetName(this.target)}, ${this.method})`;
}

class UseOtherToken implements Cmd {
  constructor(readonly pick: number) {}
  #target = (m: Readonly<Model>) => m.sessions[this.pick % m.sessions.length];
  check = (m: Readonly<Model>) => this.#target(m) !== undefined;
  async run(m: Model, r: Real) {
    const s = this.#target(m)!;
    // A's sessions are tried with the current B, B's (of any generation) with A: always a valid token.
    const other = s.owner === m.a ? m.b : m.a;
    const res = await legacyCall(r.app, s.id, 'ping', {}, other.token.headers, 'other');
    commands++;
    tally(`use with the other token (${m.lru.includes(s.id) ? 'live' : 'gone'}) → 404 -33001`);
    expectRpcError(res, 404, -33001, 'other');
    m.failures = 0;
    invariants(m, r);
  }
  toString = () => `useOtherToken(#${this.pick})`;
}

class RevokeB implements Cmd {
  check = () => true;
  async run(m: Model, r: Real) {
    const revoked = m.b;
    r.app.tokens.revoke(revoked.token.id, Date.now());
    revoked.revoked = true;
    const closed = m.sessions.filter((s) => s.owner === revoked).map((s) => s.id);
    m.lru = m.lru.filter((id) => !closed.includes(id));
    m.bGeneration++;
    m.b = { label: `B${m.bGeneration}`, token: mintToken(r.app, `B${m.bGeneration}`), revoked: false };
    tally('revoke B');
    invariants(m, r);
  }
  toString = () => 'revokeB()';
}

const pick = fc.nat({ max: 63 });
const count = fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 6 }));
const initA = count.map((n): Cmd => new Initialize('A', n));
const initB = count.map((n): Cmd => new Initialize('B', n));
const target = fc.oneof(
  pick.map((i): Target => ({ kind: 'any', pick: i })),
  fc.constant<Target>({ kind: 'leastRecent' }),
  fc.constant<Target>({ kind: 'lastEvicted' }),
);
const use = fc.tuple(target, fc.constantFrom(...USE_METHODS)).map(([t, method]): Cmd => new Use(t, method));
const useOther = pick.map((i): Cmd => new UseOtherToken(i));
const revokeB = fc.constant<Cmd>(new RevokeB());
/** fc.commands picks uniformly among its arbitraries: repeats weight them (enough opens to evict). */
const commandArbs: fc.Arbitrary<Cmd>[] = [initA, initA, initA, initB, initB, use, use, use, use, useOther, revokeB];

afterAll(() => {
  console.log(
    `legacySession model: ${requests} requests`,
  );
  const lines = [...seen.entries()].sort(([x], [y]) => x.localeCompare(y)).map(([what, n]) => `  ${what}: ${n}`);
  console.log(`legacy session commands: ${runs} runs, ${commands} requests\n${lines.join('\n')}`);
});

describe('legacy session model (xstate/graph, timer-free) against the real server', () => {
  it('the model reaches every state of the contract table', () => {
    const reached = new Set(shortest.flatMap((p) => p.steps.map((s) => String(s.state.value))));
    expect([...reached].sort()).toEqual(['active', 'closed', 'evicted']);
    // A USE between two OPEN_OTHERS saves the session: some path opens 16 others and is still active
    // (the test model keeps only paths that are not a prefix of another: that state is a step on the way).
    const steps = simple.flatMap((p) => p.steps.map((s) => s.state));
    expect(steps.some((s) => s.value === 'active' && s.context.others === MAX_SESSIONS - 1)).toBe(true);
  });

  describePaths('legacySession', paths, runPath);
});

describe('legacy sessions under random command sequences (fast-check) against the real server', () => {
  it('every answer and the live-actor count match an LRU model of 16', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commandArbs, { maxCommands: MAX_COMMANDS, size: 'max' }), async (cmds) => {
        const app = await startTestApp({ auth: true });
        try {
          const real: Real = { app, baseline: app.liveActors() };
          const a: Holder = { label: 'A', token: mintToken(app, 'A'), revoked: false };
          const b: Holder = { label: 'B0', token: mintToken(app, 'B0'), revoked: false };
          const m: Model = { lru: [], evicted: [], sessions: [], a, b, failures: 0, bGeneration: 0 };
          await fc.asyncModelRun(() => ({ model: m, real }), cmds);
          // Revoking both tokens closes every session left: nothing of the run stays alive.
          app.tokens.revoke(m.a.token.id, Date.now());
          app.tokens.revoke(m.b.token.id, Date.now());
          expect(app.liveActors()).toBe(real.baseline);
          runs++;
        } finally {
          await app.dispose();
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
