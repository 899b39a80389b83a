import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { busyQueryProcesses, queryProcesses } from '../helpers/queryProcesses.js';
import { type Caller, type Flight, InflightHarness, type Reply } from '../helpers/inflightHarness.js';
import { SERVER_INFO_KEY } from '../helpers/rpcAssertions.js';

/**
 * The contract's "Request in flight" table, row by row, over real HTTP with authentication on:
 *
 * | Running | notifications/cancelled, same token   | Cancelled  | -33002 (HTTP 200); the notification 202 |
 * | Running | token revoked                          | Cancelled  | every request of that token             |
 * | Running | handler deadline (330 s)               | Timed out  | -33003 (HTTP 200)                       |
 * | Running | client connection dropped (1 s poll)   | Cancelled  | the work is stopped                     |
 *
 * plus the "Cancellation" rules (202 whether or not a request matched; a token cancels only its own
 * requests) and progress streaming (the final frame is the response). Requests are held in flight by a
 * test-only tool (`heldTool`) that records whether its AbortSignal fired. Time is a SimulatedClock moved by
 * the test, so the deadline and the once-a-second disconnect poll are exact; the last block uses the real
 * clock and a real SQLite statement (the "Done means": each way of stopping it ends the query
 * process within 1.5 s).
 */

const CANCELLED = -33002;
const TIMEOUT = -33003;
const DEADLINE_MS = 330_000;

/** A JSON-RPC error answer, in a JSON body: exactly `{jsonrpc, id, error: {code, message}}`. */
function expectErrorReply(reply: Reply, code: number, id: string | number): void {
  expect(reply.contentType).toMatch(/^application\/json/);
  expect({ status: reply.status, code: reply.message?.error?.code }).toEqual({ status: 200, code });
  expect(Object.keys(reply.message).sort()).toEqual(['error', 'id', 'jsonrpc']);
  expect(reply.message).toMatchObject({ jsonrpc: '2.0', id, error: { code, message: expect.any(String) } });
}

/** The held tool's normal result for `flight`. */
function expectHeldResult(reply: Reply, flight: Flight): void {
  expect(reply.status).toBe(200);
  expect(reply.message).toMatchObject({
    jsonrpc: '2.0',
    id: flight.id,
    result: { resultType: 'complete', isError: false, structuredContent: { key: flight.key } },
  });
  expect(reply.message.result._meta[SERVER_INFO_KEY].name).toBe('sluice');
}

/** The notification's answer: 202 and nothing else. */
function expectAccepted(reply: Reply): void {
  expect({ status: reply.status, text: reply.text }).toEqual({ status: 202, text: '' });
}

/** Lets pending I/O (an answer the server may be writing) arrive before checking that nothing did. */
const settleIo = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('request in flight (SimulatedClock, authentication on)', () => {
  let h: InflightHarness;
  let clock: SimulatedClock;
  let alice: Caller;
  let bob: Caller;

  beforeEach(async () => {
    clock = new SimulatedClock();
    h = await InflightHarness.start({ clock });
    expect(h.baseline).toBe(0);
    alice = h.mint('alice');
    bob = h.mint('bob');
  });
  afterEach(async () => {
    // Every scenario ends with nothing running: back to the baseline.
    expect(h.app.liveActors()).toBe(h.baseline);
    expect(h.tool.held()).toBe(0);
    await h.dispose();
  });

  /** Checks that `flights` are still running: actors alive, calls held, signals quiet, no answer. */
  async function expectRunning(...flights: Flight[]): Promise<void> {
    await settleIo();
    for (const f of flights) {
      expect(h.tool.isHeld(f.key), `${f.key} held`).toBe(true);
      expect(h.tool.aborted(f.key), `${f.key} aborted`).toBe(false);
      expect(f.settled, `${f.key} answered`).toBe(false);
    }
  }

  describe('cancellation (notifications/cancelled)', () => {
    it("a caller's cancel of its running request: the request ends with -33002 at HTTP 200, the notification 202 with an empty body", async () => {
      const flight = await h.hold(alice, 1);
      expect(h.app.liveActors()).toBe(1);

      const notified = await h.cancel(alice, 1, 'the user pressed Stop');
      expectAccepted(notified);
      // The cancel is acted on before the 202 is sent: the actor is gone and the handler's signal fired.
      expect(h.app.liveActors()).toBe(0);
      expect(h.tool.aborted(flight.key)).toBe(true);
      expect(h.tool.abortReason(flight.key)).toBeDefined();

      expectErrorReply(await flight.answer(), CANCELLED, 1);
    });

    it('a string request id is matched as a string', async () => {
      const flight = await h.hold(alice, 'call-α');
      expectAccepted(await h.cancel(alice, 'call-α'));
      expectErrorReply(await flight.answer(), CANCELLED, 'call-α');
    });

    it('a cancel naming an unknown id is answered 202 and nothing happens', async () => {
      // With nothing running at all.
      expectAccepted(await h.cancel(alice, 1));
      expect(h.app.liveActors()).toBe(0);

      const flight = await h.hold(alice, 1);
      expectAccepted(await h.cancel(alice, 2));
      // JSON-RPC ids are typed: "1" is not 1.
      expectAccepted(await h.cancel(alice, '1'));
      expectAccepted(await h.cancel(alice, 1.5));
      // No requestId at all, or one that is not an id.
      expectAccepted(await h.cancel(alice, undefined));
      expectAccepted(await h.cancel(alice, null));
      expectAccepted(await h.cancel(alice, { id: 1 }));
      expect(h.app.liveActors()).toBe(1);
      await expectRunning(flight);

      h.tool.end(flight.key);
      expectHeldResult(await flight.answer(), flight);
      // A late cancel of a finished request: 202, nothing to do.
      expectAccepted(await h.cancel(alice, 1));
    });

    it("another token's cancel of the same request id is answered 202 and the request keeps running", async () => {
      const flight = await h.hold(alice, 7);
      expectAccepted(await h.cancel(bob, 7, 'not yours'));
      expect(h.app.liveActors()).toBe(1);
      await expectRunning(flight);

      // It then completes normally.
      h.tool.end(flight.key);
      expectHeldResult(await flight.answer(), flight);
    });

    it('when two tokens run a request with the same id, each cancel reaches only its own', async () => {
      const mine = await h.hold(alice, 7);
      const theirs = await h.hold(bob, 7);
      expect(h.app.liveActors()).toBe(2);

      expectAccepted(await h.cancel(bob, 7));
      expectErrorReply(await theirs.answer(), CANCELLED, 7);
      expect(h.app.liveActors()).toBe(1);
      await expectRunning(mine);

      expectAccepted(await h.cancel(alice, 7));
      expectErrorReply(await mine.answer(), CANCELLED, 7);
    });

    it('a cancel without a valid token is refused (-33009, 401) and cancels nothing', async () => {
      const flight = await h.hold(alice, 1);
      const anonymous = await h.cancel(undefined, 1);
      expect(anonymous.status).toBe(401);
      expect(anonymous.message?.error?.code).toBe(-33009);
      await expectRunning(flight);
      h.tool.end(flight.key);
      expectHeldResult(await flight.answer(), flight);
    });
  });

  describe('revocation', () => {
    it("revoking a token cancels ALL its running requests at once (-33002), and no other token's", async () => {
      const aliceFlights = [await h.hold(alice, 1), await h.hold(alice, 2), await h.hold(alice, 'three')];
      const bobFlights = [await h.hold(bob, 1), await h.hold(bob, 4)];
      expect(h.app.liveActors()).toBe(5);

      h.revoke(alice);
      // At once: synchronously with the revocation, before any answer is written.
      expect(h.app.liveActors()).toBe(2);
      for (const f of aliceFlights) expect(h.tool.aborted(f.key)).toBe(true);
      for (const f of aliceFlights) expectErrorReply(await f.answer(), CANCELLED, f.id);

      await expectRunning(...bobFlights);
      // The revoked token is refused from now on; bob's requests complete normally.
      const refused = await h.cancel(alice, 4);
      expect(refused.status).toBe(401);
      await expectRunning(...bobFlights);
      for (const f of bobFlights) h.tool.end(f.key);
      for (const f of bobFlights) expectHeldResult(await f.answer(), f);
    });

    it('revoking a token with nothing running, or revoking it twice, disturbs nobody', async () => {
      const flight = await h.hold(bob, 1);
      h.revoke(alice);
      h.revoke(alice);
      await expectRunning(flight);
      h.tool.end(flight.key);
      expectHeldResult(await flight.answer(), flight);
    });
  });

  describe('handler deadline (330 s)', () => {
    it('ends a running request with -33003 at HTTP 200; 329 999 ms is not enough', async () => {
      const flight = await h.hold(alice, 1);
      clock.increment(DEADLINE_MS - 1);
      expect(h.app.liveActors()).toBe(1);
      await expectRunning(flight);

      clock.increment(1);
      expect(h.app.liveActors()).toBe(0);
      expect(h.tool.aborted(flight.key)).toBe(true);
      expectErrorReply(await flight.answer(), TIMEOUT, 1);
    });

    it('counts from each request’s own start', async () => {
      const first = await h.hold(alice, 1);
      clock.increment(100_000);
      const second = await h.hold(bob, 1);
      clock.increment(DEADLINE_MS - 100_000);
      expectErrorReply(await first.answer(), TIMEOUT, 1);
      expect(h.app.liveActors()).toBe(1);
      await expectRunning(second);

      clock.increment(100_000 - 1);
      await expectRunning(second);
      clock.increment(1);
      expectErrorReply(await second.answer(), TIMEOUT, 1);
    });

    it('does not touch a request that completed in time', async () => {
      const flight = await h.hold(alice, 1);
      clock.increment(DEADLINE_MS - 1);
      h.tool.end(flight.key);
      expectHeldResult(await flight.answer(), flight);
      clock.increment(10 * DEADLINE_MS);
      expect(h.app.liveActors()).toBe(0);
    });
  });

  describe('dropped client connection (polled once per second)', () => {
    it.each([
      ['a JSON response', undefined],
      ['an open progress stream', 'progress-1'],
    ] as const)('is found by the next 1 s poll and the handler’s AbortSignal fires (%s)', async (_label, progressToken) => {
      const flight = await h.hold(alice, 1, progressToken === undefined ? {} : { progressToken });
      if (progressToken !== undefined) await flight.until('"progress":0.5');
      // While the client is there, the poll finds nothing wrong.
      clock.increment(5_000);
      expect(h.app.liveActors()).toBe(1);
      await expectRunning(flight);

      await flight.drop();
      // The server has seen the socket close, but nothing polls until the clock moves: the last poll was
      // at 5 000 ms, the next one is due at 6 000 ms.
      expect(h.tool.aborted(flight.key)).toBe(false);
      clock.increment(999);
      expect(h.tool.aborted(flight.key)).toBe(false);
      expect(h.app.liveActors()).toBe(1);

      clock.increment(1);
      expect(h.tool.aborted(flight.key)).toBe(true);
      expect(h.app.liveActors()).toBe(0);
      expect(await flight.reply).toBe('dropped');
    });

    it('is found within one poll however the clock was moved before', async () => {
      const flight = await h.hold(alice, 1);
      clock.increment(1_234);
      await flight.drop();
      clock.increment(1_000);
      expect(h.tool.aborted(flight.key)).toBe(true);
      expect(h.app.liveActors()).toBe(0);
    });

    it('another client dropping its connection does not disturb this one', async () => {
      const stays = await h.hold(alice, 1);
      const goes = await h.hold(alice, 2);
      await goes.drop();
      clock.increment(1_000);
      expect(h.tool.aborted(goes.key)).toBe(true);
      expect(h.app.liveActors()).toBe(1);
      await expectRunning(stays);
      h.tool.end(stays.key);
      expectHeldResult(await stays.answer(), stays);
    });
  });

  it('the server stopping ends every running request with -33000 (HTTP 503)', async () => {
    const flights = [await h.hold(alice, 1), await h.hold(bob, 1)];
    await h.app.stop();
    for (const f of flights) {
      const reply = await f.answer();
      expect({ status: reply.status, code: reply.message?.error?.code, id: reply.message?.id }).toEqual({
        status: 503,
        code: -33000,
        id: 1,
      });
      expect(h.tool.aborted(f.key)).toBe(true);
    }
  });

  describe('with progress streaming, the last frame of an ended request is its error', () => {
    const endings = {
      cancel: { code: CANCELLED, end: () => h.cancel(alice, 1).then(expectAccepted) },
      revoke: { code: CANCELLED, end: async () => h.revoke(alice) },
      deadline: { code: TIMEOUT, end: async () => clock.increment(DEADLINE_MS) },
    };

    it.each(Object.keys(endings) as (keyof typeof endings)[])('%s', async (how) => {
      const flight = await h.hold(alice, 1, { progressToken: 'tok' });
      await flight.until('"progress":0.5');
      await endings[how].end();
      const reply = await flight.answer();
      expect(reply.status).toBe(200);
      expect(reply.contentType).toMatch(/^text\/event-stream/);
      expect(reply.frames).toHaveLength(2);
      expect(reply.frames![0]).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok', progress: 0.5, total: 1, message: expect.any(String) },
      });
      expect(reply.message).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: endings[how].code } });
      expect(Object.keys(reply.message).sort()).toEqual(['error', 'id', 'jsonrpc']);
      expect(h.tool.aborted(flight.key)).toBe(true);
    });
  });
});

describe('a long SQLite query is stopped within 1.5 s (real clock)', () => {
  const SLOW_SQL =
    'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 500000000) SELECT count(*) FROM c';
  let h: InflightHarness;

  beforeAll(async () => {
    h = await InflightHarness.start();
  });
  afterAll(() => h.dispose());

  /** Starts the slow statement with a progress token; resolves once its 0.3 frame says it runs, with its process. */
  async function startSlowQuery(caller: Caller, id: string | number): Promise<{ flight: Flight; pid: number }> {
    const flight = h.call(caller, id, 'execute_query', { connection_id: 'demo', sql: SLOW_SQL }, { progressToken: id });
    await flight.until('"progress":0.3');
    // The shared pool's warm process may take it: the one running the statement is the busy one.
    let started: number[] = [];
    await expect
      .poll(() => {
        started = busyQueryProcesses();
        return started;
      })
      .toHaveLength(1);
    expect(h.app.liveActors()).toBe(1);
    return { flight, pid: started[0]! };
  }

  const gone = (pid: number) => expect.poll(queryProcesses, { timeout: 1_500, interval: 25 }).not.toContain(pid);

  it('notifications/cancelled: -33002 as the last frame, the query process gone', async () => {
    const caller = h.mint();
    const { flight, pid } = await startSlowQuery(caller, 'slow-cancel');
    const notified = h.cancel(caller, 'slow-cancel');
    await gone(pid);
    expectAccepted(await notified);
    const reply = await flight.answer();
    expect(reply.frames?.map((f) => f.params?.progress ?? 'response')).toEqual([0, 0.3, 'response']);
    expect(reply.message).toMatchObject({ id: 'slow-cancel', error: { code: CANCELLED } });
    expect(h.app.liveActors()).toBe(0);
  });

  it('token revocation: -33002 as the last frame, the query process gone', async () => {
    const caller = h.mint();
    const { flight, pid } = await startSlowQuery(caller, 'slow-revoke');
    h.revoke(caller);
    await gone(pid);
    const reply = await flight.answer();
    expect(reply.message).toMatchObject({ id: 'slow-revoke', error: { code: CANCELLED } });
    expect(h.app.liveActors()).toBe(0);
    // The activity log says why the tool stopped, not that it failed unexpectedly.
    const [row] = h.app.activity.list({ limit: 1, category: 'tool' });
    expect(row).toMatchObject({ action: 'execute_query', outcome: 'error', error: 'user_cancelled' });
  });

  it('dropped socket: found by the 1 s poll, the query process gone', async () => {
    const caller = h.mint();
    const { flight, pid } = await startSlowQuery(caller, 'slow-drop');
    void flight.drop();
    await gone(pid);
    expect(await flight.reply).toBe('dropped');
    expect(h.app.liveActors()).toBe(0);
  });

  it('the connection serves again after the three stops', async () => {
    const caller = h.mint();
    const reply = await h.call(caller, 1, 'execute_query', { connection_id: 'demo', sql: 'SELECT 41 + 1' }).answer();
    expect(reply.message.result.structuredContent.rows).toEqual([[42]]);
  });
});
