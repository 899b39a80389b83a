import { afterEach, describe, expect, it } from 'vitest';
import { type AnyActorRef, SimulatedClock } from 'xstate';
import type { InflightOutcome } from '../../../machines/inflightRequest.js';
import type { Supervisor, SupervisorEvent } from '../../../machines/supervisor.js';
import { startSupervisor } from '../../../src/runtime/machines.js';
import { InflightRequests, type RequestInput, type SignalSource } from '../../../src/runtime/inflightRequests.js';
import { ErrorCode, ProtocolError } from '../../../src/core/errors.js';

type Result = Record<string, unknown>;

let stopSupervisor: (() => void) | undefined;

afterEach(() => {
  stopSupervisor?.();
  stopSupervisor = undefined;
});

/** A real supervisor on a simulated clock, with InflightRequests in front of it. */
function start(options: { countSettles?: boolean } = {}) {
  const clock = new SimulatedClock();
  let spawned = 0;
  const settles: InflightOutcome[] = [];
  const supervisor = startSupervisor({
    clock,
    childDone: (done) => requests.keys.reaped(done.actorId),
    inspect: (event) => {
      if (event.type === '@xstate.actor' && (event.actorRef as AnyActorRef).id.startsWith('inflightRequest:')) spawned += 1;
    },
  });
  stopSupervisor = () => supervisor.stop();
  const countingSettles = {
    send: (event: SupervisorEvent) => {
      if (event.type !== 'request.start') return supervisor.send(event);
      const { settle } = event.input;
      const counted = (outcome: InflightOutcome) => {
        settles.push(outcome);
        settle(outcome);
      };
      supervisor.send({ ...event, input: { ...event.input, settle: counted } });
    },
  } as unknown as Supervisor;
  const requests = new InflightRequests(options.countSettles ? countingSettles : supervisor);
  return {
    clock,
    requests,
    supervisor,
    settles,
    live: () => Object.keys(supervisor.getSnapshot().children).length,
    spawned: () => spawned,
  };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

function held() {
  let resolve!: (result: Result) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<Result>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  let source: SignalSource | undefined;
  const work = (signal: SignalSource) => {
    source = signal;
    return promise;
  };
  return { work, resolve, reject, signal: () => (source as SignalSource)() };
}

function request(work: RequestInput['work'], fields: Partial<RequestInput> = {}): RequestInput {
  return {
    principalId: 'alice',
    requestId: 1,
    method: 'tools/call',
    deadlineMs: null,
    connected: () => true,
    work,
    ...fields,
  };
}

/** The outcome, and whether it has arrived yet. */
function watch(outcome: Promise<InflightOutcome>) {
  const seen: { outcome?: InflightOutcome } = {};
  void outcome.then((value) => (seen.outcome = value));
  return seen;
}

async function endedWith(outcome: Promise<InflightOutcome>, code: ErrorCode): Promise<void> {
  const ended = await outcome;
  expect(ended.ok).toBe(false);
  const { error } = ended as { ok: false; error: unknown };
  expect(error).toBeInstanceOf(ProtocolError);
  expect((error as ProtocolError).code).toBe(code);
}

describe('InflightRequests', () => {
  it('answers a handler that settles within the turn directly, never spawning an actor', async () => {
    const { requests, live, spawned } = start();
    const outcome = requests.run(request(async () => ({ ok: 1 })));
    expect(live()).toBe(0);
    await expect(outcome).resolves.toEqual({ ok: true, result: { ok: 1 } });
    await turn();
    expect(live()).toBe(0);
    expect(spawned()).toBe(0);
  });

  it('answers a handler that throws synchronously with its error', async () => {
    const { requests, live, spawned } = start();
    const boom = new Error('boom');
    const outcome = requests.run(
      request(() => {
        throw boom;
      }),
    );
    await expect(outcome).resolves.toEqual({ ok: false, error: boom });
    await turn();
    expect(live()).toBe(0);
    expect(spawned()).toBe(0);
  });

  it('answers a handler that rejects within the turn with its error', async () => {
    const { requests, live, spawned } = start();
    const boom = new Error('boom');
    const outcome = requests.run(request(() => Promise.reject(boom)));
    await expect(outcome).resolves.toEqual({ ok: false, error: boom });
    await turn();
    expect(live()).toBe(0);
    expect(spawned()).toBe(0);
  });

  it('makes a handler still pending at the end of the turn one actor, which answers once it resolves', async () => {
    const { requests, live, spawned } = start();
    const handler = held();
    const outcome = watch(requests.run(request(handler.work)));
    expect(live()).toBe(0);
    await turn();
    expect(live()).toBe(1);
    expect(spawned()).toBe(1);
    expect(outcome.outcome).toBeUndefined();
    handler.resolve({ rows: 2 });
    await turn();
    expect(outcome.outcome).toEqual({ ok: true, result: { rows: 2 } });
    expect(live()).toBe(0);
  });

  it('answers a handler that rejects after it became an actor with its error', async () => {
    const { requests, live } = start();
    const handler = held();
    const outcome = requests.run(request(handler.work));
    await turn();
    const boom = new Error('late');
    handler.reject(boom);
    await expect(outcome).resolves.toEqual({ ok: false, error: boom });
    expect(live()).toBe(0);
  });

  it('promotes every request pending in one turn, and reuses the keys of finished ones', async () => {
    const { requests, live, supervisor } = start();
    const first = held();
    const second = held();
    const outcomes = [
      requests.run(request(first.work, { requestId: 1 })),
      requests.run(request(second.work, { requestId: 2 })),
    ];
    await turn();
    expect(Object.keys(supervisor.getSnapshot().children).sort()).toEqual(['inflightRequest:0', 'inflightRequest:1']);
    first.resolve({});
    second.resolve({});
    await Promise.all(outcomes);
    expect(live()).toBe(0);
    const third = held();
    const outcome = requests.run(request(third.work, { requestId: 3 }));
    await turn();
    expect(Object.keys(supervisor.getSnapshot().children)).toHaveLength(1);
    expect(['inflightRequest:0', 'inflightRequest:1']).toContain(Object.keys(supervisor.getSnapshot().children)[0]);
    third.resolve({});
    await outcome;
  });

  it('cancels a request cancelled in the turn it started, aborting the signal its handler took first', async () => {
    const { requests, live } = start();
    const handler = held();
    const outcome = requests.run(
      request((source) => {
        source();
        return handler.work(source);
      }),
    );
    const signal = handler.signal();
    expect(signal.aborted).toBe(false);
    requests.cancel('alice', 1);
    await endedWith(outcome, ErrorCode.RequestCancelled);
    expect(signal.aborted).toBe(true);
    expect(live()).toBe(0);
  });

  it('cancels a request cancelled in the turn it started, aborting the signal its handler takes afterwards', async () => {
    const { requests, live } = start();
    const handler = held();
    const outcome = requests.run(request(handler.work));
    requests.cancel('alice', 1);
    await endedWith(outcome, ErrorCode.RequestCancelled);
    expect(handler.signal().aborted).toBe(true);
    expect(live()).toBe(0);
  });

  it('aborts the signal a handler takes only after it became an actor, when cancelled', async () => {
    const { requests } = start();
    const handler = held();
    const outcome = requests.run(request(handler.work));
    await turn();
    const signal = handler.signal();
    expect(signal.aborted).toBe(false);
    requests.cancel('alice', 1);
    await endedWith(outcome, ErrorCode.RequestCancelled);
    expect(signal.aborted).toBe(true);
  });

  it('leaves a request running when another principal cancels its id', async () => {
    const { requests, live } = start();
    const handler = held();
    const outcome = watch(requests.run(request(handler.work)));
    requests.cancel('bob', 1);
    requests.cancel('alice', 2);
    await turn();
    expect(live()).toBe(1);
    expect(outcome.outcome).toBeUndefined();
    expect(handler.signal().aborted).toBe(false);
    handler.resolve({ done: true });
    await turn();
    expect(outcome.outcome).toEqual({ ok: true, result: { done: true } });
  });

  it('ends a revoked principal’s requests with -33002 and leaves the others running', async () => {
    const { requests, live } = start();
    const first = held();
    const second = held();
    const other = held();
    const aliceFirst = requests.run(request(first.work, { requestId: 1 }));
    const aliceSecond = requests.run(request(second.work, { requestId: 2 }));
    const bob = watch(requests.run(request(other.work, { principalId: 'bob' })));
    await turn();
    expect(live()).toBe(3);
    requests.revoke('alice');
    await endedWith(aliceFirst, ErrorCode.RequestCancelled);
    await endedWith(aliceSecond, ErrorCode.RequestCancelled);
    expect(live()).toBe(1);
    expect(bob.outcome).toBeUndefined();
    expect(first.signal().aborted).toBe(true);
    expect(other.signal().aborted).toBe(false);
    other.resolve({ still: 'here' });
    await turn();
    expect(bob.outcome).toEqual({ ok: true, result: { still: 'here' } });
    expect(live()).toBe(0);
  });

  it('ends a request revoked in the turn it started with -33002', async () => {
    const { requests } = start();
    const handler = held();
    const outcome = requests.run(request(handler.work));
    requests.revoke('alice');
    await endedWith(outcome, ErrorCode.RequestCancelled);
  });

  it('ends every pending request with -33000 when stopping, including ones started this turn', async () => {
    const { requests, live } = start();
    const earlier = held();
    const later = held();
    const first = requests.run(request(earlier.work, { requestId: 1 }));
    await turn();
    const second = requests.run(request(later.work, { principalId: 'bob', requestId: 2 }));
    requests.stopAll();
    await endedWith(first, ErrorCode.ServerUnavailable);
    await endedWith(second, ErrorCode.ServerUnavailable);
    expect(earlier.signal().aborted).toBe(true);
    expect(later.signal().aborted).toBe(true);
    expect(live()).toBe(0);
  });

  it('times a pending request out with -33003 at its deadline', async () => {
    const { requests, live, clock } = start();
    const handler = held();
    const outcome = requests.run(request(handler.work, { deadlineMs: 1000 }));
    const seen = watch(outcome);
    await turn();
    clock.increment(999);
    await turn();
    expect(seen.outcome).toBeUndefined();
    clock.increment(1);
    await endedWith(outcome, ErrorCode.RequestTimeout);
    expect(handler.signal().aborted).toBe(true);
    expect(live()).toBe(0);
  });

  it('never times out a request without a deadline', async () => {
    const { requests, live, clock } = start();
    const handler = held();
    const outcome = watch(requests.run(request(handler.work, { deadlineMs: null })));
    await turn();
    clock.increment(1000);
    clock.increment(1_000_000);
    await turn();
    expect(outcome.outcome).toBeUndefined();
    expect(live()).toBe(1);
    handler.resolve({});
    await turn();
    expect(outcome.outcome).toEqual({ ok: true, result: {} });
  });

  it('ends a pending request with -33002 at the first poll after its client disconnected', async () => {
    const { requests, live, clock } = start();
    const handler = held();
    let connected = true;
    const outcome = requests.run(request(handler.work, { connected: () => connected }));
    const seen = watch(outcome);
    await turn();
    clock.increment(1000);
    await turn();
    expect(seen.outcome).toBeUndefined();
    connected = false;
    clock.increment(1000);
    await endedWith(outcome, ErrorCode.RequestCancelled);
    expect(handler.signal().aborted).toBe(true);
    expect(live()).toBe(0);
  });

  it('ends a request whose client is gone from the start at the first poll', async () => {
    const { requests, clock } = start();
    const handler = held();
    const outcome = requests.run(request(handler.work, { connected: () => false }));
    await turn();
    clock.increment(1000);
    await endedWith(outcome, ErrorCode.RequestCancelled);
  });

  it('delivers a late result exactly once', async () => {
    const { requests, live, settles } = start({ countSettles: true });
    const handler = held();
    const outcome = requests.run(request(handler.work));
    await turn();
    expect(live()).toBe(1);
    handler.resolve({ once: true });
    await expect(outcome).resolves.toEqual({ ok: true, result: { once: true } });
    handler.resolve({ twice: true });
    handler.reject(new Error('too late'));
    requests.cancel('alice', 1);
    requests.stopAll();
    await turn();
    expect(settles).toEqual([{ ok: true, result: { once: true } }]);
    expect(live()).toBe(0);
  });

  it('settles a request answered within the turn without its actor', async () => {
    const { requests, settles } = start({ countSettles: true });
    await expect(requests.run(request(async () => ({ quick: true })))).resolves.toEqual({ ok: true, result: { quick: true } });
    await turn();
    expect(settles).toEqual([]);
  });
});
