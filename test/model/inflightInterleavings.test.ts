import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { type Caller, type Flight, InflightHarness } from '../helpers/inflightHarness.js';

/**
 * fast-check command sequences over requests in flight: several concurrent held requests from two tokens
 * (ids count from 1 per token, so the two tokens' ids collide), completed, cancelled by their own caller,
 * "cancelled" by the other token naming the same id (which reaches only the sender's own request with that
 * id, if any), tokens revoked (a fresh token takes the revoked one's place), time moved by up to 400 s
 * (the 330 s deadline), and connections dropped (then one 1 s poll period passes). A small model predicts
 * how each request ends and its answer (200 result, -33002, -33003 at HTTP 200, or no answer once
 * dropped); after every command the app's live actors and the held calls equal the model's running
 * requests, and at the end nothing is left.
 */

/** The contract's handler deadline (Limits), spelled out rather than imported from the machine under test. */
const DEADLINE_MS = 330_000;

const NUM_RUNS = 50;
const MAX_COMMANDS = 20;
/** Below the per-caller concurrency limit (8), which is not what this property is about. */
const MAX_RUNNING_PER_TOKEN = 6;

type Outcome = 'completed' | 'cancelled' | 'timedOut' | 'dropped';
type Req = { flight: Flight; caller: Caller; id: number; startedAt: number; progress: boolean };
type Slot = { caller: Caller; nextId: number };
type Model = {
  now: number;
  slots: [Slot, Slot];
  running: Req[];
  /** Requests that ended during the current command, with how; checked and cleared by `invariants`. */
  ended: { req: Req; outcome: Outcome }[];
};
type Real = { h: InflightHarness; clock: SimulatedClock };

const seen = new Map<string, number>();
const tally = (what: string) => seen.set(what, (seen.get(what) ?? 0) + 1);
let runs = 0;
let commands = 0;
/** Most requests running at once in any run. */
let peak = 0;

function end(m: Model, req: Req, outcome: Outcome): void {
  m.running = m.running.filter((r) => r !== req);
  m.ended.push({ req, outcome });
  tally(`ended ${outcome}`);
}

/** Time moves: requests at or past their 330 s deadline time out. */
function timeMoved(m: Model, ms: number): void {
  m.now += ms;
  for (const req of m.running.filter((r) => m.now - r.startedAt >= DEADLINE_MS)) end(m, req, 'timedOut');
}

/** `notifications/cancelled` from `caller` for `id`: ends that caller's own running request with that id. */
function cancelled(m: Model, caller: Caller, id: number): void {
  for (const req of m.running.filter((r) => r.caller === caller && r.id === id)) end(m, req, 'cancelled');
}

async function invariants(m: Model, { h }: Real): Promise<void> {
  for (const { req, outcome } of m.ended.splice(0)) {
    const what = `${req.caller.name}#${req.id} ${outcome}`;
    expect(h.tool.aborted(req.flight.key), `${what}: handler signal`).toBe(outcome !== 'completed');
    const reply = await req.flight.reply;
    if (outcome === 'dropped') {
      expect(reply, what).toBe('dropped');
      continue;
    }
    expect(reply, what).not.toBe('dropped');
    if (reply === 'dropped') return;
    expect(reply.status, what).toBe(200);
    expect(reply.contentType, what).toMatch(req.progress ? /^text\/event-stream/ : /^application\/json/);
    expect(reply.message?.id, what).toBe(req.id);
    if (outcome === 'completed') {
      expect(reply.message?.result?.structuredContent, what).toEqual({ key: req.flight.key });
    } else {
      expect(reply.message?.error?.code, what).toBe(outcome === 'cancelled' ? -33002 : -33003);
    }
  }
  expect(h.app.liveActors()).toBe(h.baseline + m.running.length);
  expect(h.tool.held()).toBe(m.running.length);
  for (const req of m.running) {
    expect(h.tool.isHeld(req.flight.key)).toBe(true);
    expect(req.flight.settled, `${req.caller.name}#${req.id} answered while running`).toBe(false);
  }
}

type Cmd = fc.AsyncCommand<Model, Real>;
const pickRunning = (m: Readonly<Model>, pick: number) => m.running[pick % m.running.length]!;
const slotOf = (m: Readonly<Model>, req: Req) => (m.slots[0].caller === req.caller ? 0 : 1);

class Start implements Cmd {
  constructor(
    readonly slot: 0 | 1,
    readonly progress: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.running.filter((r) => r.caller === m.slots[this.slot].caller).length < MAX_RUNNING_PER_TOKEN;
  async run(m: Model, r: Real) {
    commands++;
    const slot = m.slots[this.slot];
    const id = slot.nextId++;
    const flight = await r.h.hold(slot.caller, id, this.progress ? { progressToken: `p${id}` } : {});
    m.running.push({ flight, caller: slot.caller, id, startedAt: m.now, progress: this.progress });
    peak = Math.max(peak, m.running.length);
    tally('start');
    await invariants(m, r);
  }
  toString = () => `start(token ${this.slot}${this.progress ? ', progress' : ''})`;
}

/**
 * A command on one running request (the `pick`-th, modulo how many run): counted, applied to the app and
 * the model by `apply`, then the invariants are checked, then `afterwards` if the command has more to check.
 */
abstract class OnRunning implements Cmd {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => m.running.length > 0;
  async run(m: Model, r: Real) {
    commands++;
    const req = pickRunning(m, this.pick);
    await this.apply(m, r, req);
    await invariants(m, r);
    this.afterwards?.(r, req);
  }
  protected abstract apply(m: Model, r: Real, req: Req): void | Promise<void>;
  protected afterwards?(r: Real, req: Req): void;
}

/** `notifications/cancelled` from `sender` for `id`: accepted with an empty 202, then the model follows. */
async function cancelFrom(m: Model, r: Real, sender: Caller, id: number, reason: string): Promise<void> {
  const notified = await r.h.cancel(sender, id, reason);
  expect({ status: notified.status, text: notified.text }).toEqual({ status: 202, text: '' });
  cancelled(m, sender, id);
}

class Complete extends OnRunning {
  protected apply(m: Model, r: Real, req: Req) {
    r.h.tool.end(req.flight.key);
    end(m, req, 'completed');
  }
  override toString = () => `complete(#${this.pick})`;
}

class CancelOwn extends OnRunning {
  protected async apply(m: Model, r: Real, req: Req) {
    await cancelFrom(m, r, req.caller, req.id, 'fast-check: own');
    tally('cancel own');
  }
  override toString = () => `cancelOwn(#${this.pick})`;
}

class CancelOthers extends OnRunning {
  protected async apply(m: Model, r: Real, req: Req) {
    const sender = m.slots[1 - slotOf(m, req)]!.caller;
    const hitsOwn = m.running.some((x) => x.caller === sender && x.id === req.id);
    await cancelFrom(m, r, sender, req.id, "fast-check: someone else's");
    tally(hitsOwn ? "cancel other's id (sender's own same id ended)" : "cancel other's id (nothing ended)");
  }
  /** Someone else's cancellation never reaches the request whose id it names. */
  protected override afterwards(r: Real, req: Req) {
    expect(r.h.tool.isHeld(req.flight.key)).toBe(true);
  }
  override toString = () => `cancelOthers(#${this.pick})`;
}

class Revoke implements Cmd {
  constructor(readonly slot: 0 | 1) {}
  check = () => true;
  async run(m: Model, r: Real) {
    commands++;
    const revoked = m.slots[this.slot].caller;
    r.h.revoke(revoked);
    for (const req of m.running.filter((x) => x.caller === revoked)) end(m, req, 'cancelled');
    tally('revoke');
    await invariants(m, r);
    // The revoked token gets nothing started any more; a fresh token takes its place.
    const refused = await r.h.call(revoked, 1, r.h.tool.name, { key: `refused-${revoked.tokenId}` }).answer();
    expect({ status: refused.status, code: refused.message?.error?.code }).toEqual({ status: 401, code: -33009 });
    m.slots[this.slot] = { caller: r.h.mint(), nextId: 1 };
    await invariants(m, r);
  }
  toString = () => `revoke(token ${this.slot})`;
}

class Advance implements Cmd {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    commands++;
    r.clock.increment(this.ms);
    timeMoved(m, this.ms);
    tally('advance');
    await invariants(m, r);
  }
  toString = () => `advance(${this.ms} ms)`;
}

/** Moves time to a running request's deadline exactly (`offset` 0) or a millisecond short of it (-1). */
class AdvanceToDeadline extends OnRunning {
  constructor(
    pick: number,
    readonly offset: 0 | -1,
  ) {
    super(pick);
  }
  protected apply(m: Model, r: Real, req: Req) {
    const ms = req.startedAt + DEADLINE_MS + this.offset - m.now;
    r.clock.increment(ms);
    timeMoved(m, ms);
    tally(`advance to a deadline${this.offset ? ' - 1 ms' : ''}`);
  }
  override toString = () => `advanceToDeadline(#${this.pick}${this.offset ? ', -1 ms' : ''})`;
}

class Disconnect extends OnRunning {
  protected async apply(m: Model, r: Real, req: Req) {
    await req.flight.drop();
    // One poll period: the dropped request's next poll is due within it.
    r.clock.increment(1_000);
    end(m, req, 'dropped');
    timeMoved(m, 1_000);
  }
  override toString = () => `disconnect(#${this.pick})`;
}

const pick = fc.nat({ max: 20 });
const slot = fc.constantFrom<0 | 1>(0, 1);
const start = fc.tuple(slot, fc.boolean()).map(([s, progress]): Cmd => new Start(s, progress));
const advance = fc
  .oneof(
    fc.integer({ min: 0, max: 400_000 }),
    fc.integer({ min: 0, max: 5_000 }),
    // The deadline's edge, exactly or a millisecond short.
    fc.constantFrom(1, 999, 1_000, DEADLINE_MS - 1, DEADLINE_MS, 100_000, 229_999, 230_000),
  )
  .map((ms): Cmd => new Advance(ms));
/** fc.commands picks uniformly among its arbitraries: starts are repeated so that several requests overlap. */
const commandArbs: fc.Arbitrary<Cmd>[] = [
  start,
  start,
  start,
  start,
  pick.map((i): Cmd => new Complete(i)),
  pick.map((i): Cmd => new CancelOwn(i)),
  pick.map((i): Cmd => new CancelOthers(i)),
  slot.map((s): Cmd => new Revoke(s)),
  advance,
  advance,
  fc.tuple(pick, fc.constantFrom<0 | -1>(0, -1)).map(([i, offset]): Cmd => new AdvanceToDeadline(i, offset)),
  pick.map((i): Cmd => new Disconnect(i)),
];

const began = performance.now();
afterAll(() => {
  const lines = [...seen.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([what, n]) => `  ${what}: ${n}`);
  console.log(
    `in-flight interleavings: ${runs} runs, ${commands} commands, at most ${peak} running at once, ` +
      `${Math.round(performance.now() - began)} ms\n${lines.join('\n')}`,
  );
});

describe('requests in flight under random interleavings (fast-check) against the real app', () => {
  // Each run starts a real app: on a busy 2-core machine the runs outlast vitest's default 20 s guard.
  it('every answer, live-actor count and held call matches the model', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commandArbs, { maxCommands: MAX_COMMANDS, size: 'max' }), async (cmds) => {
        const clock = new SimulatedClock();
        const h = await InflightHarness.start({ clock });
        try {
          const model: Model = {
            now: 0,
            slots: [
              { caller: h.mint('token A'), nextId: 1 },
              { caller: h.mint('token B'), nextId: 1 },
            ],
            running: [],
            ended: [],
          };
          const real: Real = { h, clock };
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          // Whatever is left completes normally; then nothing is alive.
          for (const req of [...model.running]) {
            h.tool.end(req.flight.key);
            end(model, req, 'completed');
          }
          await invariants(model, real);
          expect(h.app.liveActors()).toBe(h.baseline);
          expect(h.baseline).toBe(0);
          runs++;
        } finally {
          await h.dispose();
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
