import { randomBytes } from 'node:crypto';
import { SimulatedClock } from 'xstate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { challengeFor, createVerifier } from '../../src/pairing/pkce.js';
import { type ConsoleClient, type ConsoleEvents, openConsole, type SseFrame } from '../helpers/consoleClient.js';
import { expectSessionOpened, initializeAs, legacyCall } from '../helpers/legacyProtocol.js';
import { callbackFields, pairingLink, redeem } from '../helpers/pairing.js';
import { callTool, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * The live actor inspector's feed (docs/console.md, "The inspector feed"): the machines' graphs, and the
 * server-sent frames XState's inspection becomes — with nothing secret in them.
 */

const MACHINES = ['supervisor', 'pairingRequest', 'pairingCode', 'inflightRequest', 'consent', 'subscription', 'legacySession', 'heldRead'];
const ACTOR_ID = new RegExp(`^(${MACHINES.join('|')}):[0-9a-f]{8}$`);
const unique = () => randomBytes(4).toString('hex');
const bearer = (plaintext: string) => ({ authorization: `Bearer ${plaintext}` });

type Frame = { type: string; actorId: string; machine: string; [field: string]: any };

const data = (frame: SseFrame) => frame.data as Frame;
const isFrame = (type: string, match: Partial<Frame> = {}) => (frame: SseFrame) =>
  data(frame)?.type === type && Object.entries(match).every(([key, value]) => data(frame)[key] === value);

/** Every frame of a stream, the `live` frame's actors included, as actor frames and change frames. */
function allFrames(events: ConsoleEvents): Frame[] {
  return events.frames.flatMap((frame) => {
    const body = data(frame);
    return body.type === 'live' ? (body.actors as Frame[]) : [body];
  });
}

/** The app side of a pairing: a deep link with a fresh verifier, the sheet's id. */
function openLink(app: TestApp, client: string) {
  const verifier = createVerifier();
  const opened = app.pairing.openLink(pairingLink({ client, challenge: challengeFor(verifier) }));
  if (!opened.ok) throw new Error(`the pairing link was refused: ${opened.reason}`);
  return { verifier, sheetId: opened.sheet.id };
}

/** A Sluice with authentication on, its console opened and its inspector stream open, for one block of tests. */
function withInspectorStream() {
  const stream = {
    delivered: [] as URL[],
    app: undefined as unknown as TestApp,
    client: undefined as unknown as ConsoleClient,
    events: undefined as unknown as ConsoleEvents,
  };
  beforeAll(async () => {
    stream.app = await startTestApp({
      auth: true,
      deliver: async (url) => {
        stream.delivered.push(url);
      },
    });
    stream.client = await openConsole(stream.app);
    stream.events = await stream.client.events('/api/inspector/events');
  });
  afterAll(async () => {
    await stream.events?.close();
    await stream.app?.dispose();
  });
  return stream;
}


describe('GET /api/inspector/machines', () => {
  let app: TestApp;
  let client: ConsoleClient;

  beforeAll(async () => {
    app = await startTestApp();
    client = await openConsole(app);
  });
  afterAll(() => app?.dispose());

  it('names every machine by id, with its initial state', async () => {
    const reply = await client.get('/api/inspector/machines');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(reply.json)).toEqual(['machines']);
    const { machines } = reply.json;
    expect(Object.keys(machines).sort()).toEqual([...MACHINES].sort());
    const initial = Object.fromEntries(MACHINES.map((id) => [id, machines[id].initial]));
    expect(initial).toEqual({
      supervisor: 'running',
      pairingRequest: 'awaitingApproval',
      pairingCode: 'pending',
      inflightRequest: 'running',
      consent: 'asking',
      subscription: 'listening',
      legacySession: 'active',
      heldRead: 'open',
    });
    for (const id of MACHINES) {
      expect(machines[id].id).toBe(id);
      expect(Object.keys(machines[id].states)).toContain(machines[id].initial);
    }
  });

  it('pairingRequest: approve → codePending, deny → denied, after 300000 ms → expired; the three ends are final', async () => {
    const { machines } = (await client.get('/api/inspector/machines')).json;
    expect(machines.pairingRequest).toEqual({
      id: 'pairingRequest',
      initial: 'awaitingApproval',
      states: {
        awaitingApproval: { on: { approve: ['codePending'], deny: ['denied'] }, after: { '300000': ['expired'] } },
        codePending: { type: 'final', on: {}, after: {} },
        denied: { type: 'final', on: {}, after: {} },
        expired: { type: 'final', on: {}, after: {} },
      },
    });
  });

  it('pairingCode: exchange → spent or burned, 300000 ms → expired, then 600000 ms → gone (expired is not final)', async () => {
    const { machines } = (await client.get('/api/inspector/machines')).json;
    expect(machines.pairingCode).toEqual({
      id: 'pairingCode',
      initial: 'pending',
      states: {
        pending: { on: { exchange: ['spent', 'burned'] }, after: { '300000': ['expired'] } },
        spent: { type: 'final', on: {}, after: {} },
        burned: { type: 'final', on: {}, after: {} },
        expired: { on: {}, after: { '600000': ['gone'] } },
        gone: { type: 'final', on: {}, after: {} },
      },
    });
  });

  it('consent, legacySession and subscription, state by state', async () => {
    const { machines } = (await client.get('/api/inspector/machines')).json;
    expect(machines.consent.states).toEqual({
      asking: { on: { approve: ['approved'], deny: ['denied'], abandon: ['abandoned'] }, after: {} },
      approved: { type: 'final', on: {}, after: {} },
      denied: { type: 'final', on: {}, after: {} },
      abandoned: { type: 'final', on: {}, after: {} },
    });
    expect(machines.legacySession.states).toEqual({
      active: { on: { evict: ['evicted'], close: ['closed'] }, after: {} },
      evicted: { type: 'final', on: {}, after: {} },
      closed: { type: 'final', on: {}, after: {} },
    });
    expect(machines.subscription.states).toEqual({
      listening: { on: { cancel: ['closed'], revoke: ['closed'], shutdown: ['closed'], disconnect: ['closed'] }, after: {} },
      closed: { type: 'final', on: {}, after: {} },
    });
  });

  it('inflightRequest: cancel/revoke/shutdown → cancelled, disconnect → disconnected, its handler → completed or failed, the deadline → timedOut', async () => {
    const { machines } = (await client.get('/api/inspector/machines')).json;
    const { states } = machines.inflightRequest;
    expect(Object.keys(states).sort()).toEqual(['cancelled', 'completed', 'disconnected', 'failed', 'running', 'timedOut']);
    expect(states.running.on).toMatchObject({
      cancel: ['cancelled'],
      revoke: ['cancelled'],
      shutdown: ['cancelled'],
      disconnect: ['disconnected'],
    });
    const handlerTargets = Object.entries(states.running.on as Record<string, string[]>)
      .filter(([event]) => /^xstate\.(done|error)\.actor\./.test(event))
      .flatMap(([, targets]) => targets)
      .sort();
    expect(handlerTargets).toEqual(['completed', 'failed']);
    // A computed delay is named, not given in ms (docs/console.md).
    expect(states.running.after).toEqual({ deadline: ['timedOut'] });
    for (const end of ['completed', 'failed', 'cancelled', 'timedOut', 'disconnected']) expect(states[end].type).toBe('final');
    expect(states.running.type).toBeUndefined();
  });

  it('supervisor: one running state, never final, spawning on pairing.open, code.issue, request.start, consent.ask, session.open', async () => {
    const { machines } = (await client.get('/api/inspector/machines')).json;
    expect(Object.keys(machines.supervisor.states)).toEqual(['running']);
    expect(machines.supervisor.states.running.type).toBeUndefined();
    expect(Object.keys(machines.supervisor.states.running.on)).toEqual(
      expect.arrayContaining(['pairing.open', 'code.issue', 'request.start', 'consent.ask', 'subscription.start', 'session.open', 'token.revoked']),
    );
  });
});

describe('GET /api/inspector/events', () => {
  const stream = withInspectorStream();
  let supervisorId: string;


  it('is an event stream whose first frame is {type: live, actors} with the supervisor', async () => {
    expect(stream.events.status).toBe(200);
    expect(stream.events.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const before = Date.now();
    const first = await stream.events.next();
    const supervisor = (first.data.actors as Frame[]).find((actor) => actor.machine === 'supervisor');
    supervisorId = supervisor?.actorId ?? '';
    expect(first.event).toBeUndefined();
    expect(Object.keys(first.data).sort()).toEqual(['actors', 'now', 'type']);
    expect(first.data.type).toBe('live');
    // `now` is the application's clock (the system clock here).
    expect(first.data.now).toBeGreaterThan(before - 60_000);
    expect(first.data.now).toBeLessThanOrEqual(Date.now());
    expect(supervisor).toEqual({
      type: 'actor',
      actorId: expect.stringMatching(/^supervisor:[0-9a-f]{8}$/),
      machine: 'supervisor',
      parentId: null,
      principal: null,
      state: 'running',
      at: expect.any(Number),
    });
    expect(first.data.actors).toHaveLength(1);
  });

  /** Resolves once the actor has been reported stopped; returns every frame about it, in order. */
  async function lifeOf(actorId: string): Promise<Frame[]> {
    await expect
      .poll(() => stream.events.frames.some(isFrame('stopped', { actorId })), { timeout: 2_000, interval: 10 })
      .toBe(true);
    return stream.events.frames.map(data).filter((frame) => frame.actorId === actorId);
  }

  /** The frame of the first actor of `machine` started after the frames already read. */
  async function started(machine: string, timeoutMs = 2_000): Promise<Frame> {
    return data(await stream.events.next(isFrame('actor', { machine }), timeoutMs));
  }

  /** A pairing approved through the console: the request's and the code's actor ids, the code, the verifier. */
  async function approvedPairing() {
    stream.events.drain();
    const { verifier, sheetId } = openLink(stream.app, `Inspected client ${unique()}`);
    const request = await started('pairingRequest');
    const approved = await stream.client.command('approvals.approve', { id: sheetId, level: 'readWrite' });
    expect(approved).toMatchObject({ ok: true });
    const code = callbackFields((stream.delivered.at(-1) as URL).href).code ?? '';
    const codeFrame = await started('pairingCode');
    return { request, codeFrame, code, verifier, sheetId, tokenId: approved.tokenId as string };
  }

  /** A write through a confirmation dialog approved in the console: the consent and request actors' frames. */
  async function approvedDialog(marker: string) {
    const name = `Inspector writer ${unique()}`;
    const token = await stream.client.command('tokens.create', { name, level: 'readWrite' });
    const sql = `INSERT INTO genres (name) VALUES ('${marker}')`;
    stream.events.drain();
    const pending = callTool(stream.app, 'execute_query', { connection_id: 'demo', sql }, { headers: bearer(token.plaintext) });
    // The engine checks the statement before anyone is asked (a round trip to the query process), so
    // the call becomes an actor at the end of its first turn, before the dialog opens.
    const request = await started('inflightRequest', 5_000);
    const consent = await started('consent', 5_000);
    const dialog = (await stream.client.state()).dialogs.find((d: any) => d.statement === sql);
    expect(await stream.client.command('approvals.approve', { id: dialog.id })).toEqual({ ok: true });
    expect((await pending).json.result.structuredContent).toMatchObject({ rows_affected: 1 });
    return { request, consent, token, name };
  }

  it('a pairing link → an actor frame (pairingRequest, awaitingApproval); approved → stopped, and a pairingCode actor whose id is not the code', async () => {
    const { request, codeFrame, code, verifier, tokenId } = await approvedPairing();
    expect(request).toEqual({
      type: 'actor',
      actorId: expect.stringMatching(/^pairingRequest:[0-9a-f]{8}$/),
      machine: 'pairingRequest',
      parentId: supervisorId,
      principal: null,
      state: 'awaitingApproval',
      at: expect.any(Number),
    });
    const life = await lifeOf(request.actorId);
    expect(life.at(-1)).toEqual({ type: 'stopped', actorId: request.actorId, machine: 'pairingRequest', at: expect.any(Number) });

    // The code's actor: its id is a digest, never the code the callback carried.
    expect(code).toMatch(/^[0-9a-f-]{36}$/);
    expect(codeFrame).toEqual({
      type: 'actor',
      actorId: expect.stringMatching(/^pairingCode:[0-9a-f]{8}$/),
      machine: 'pairingCode',
      parentId: supervisorId,
      principal: { id: tokenId, name: expect.any(String) },
      state: 'pending',
      at: expect.any(Number),
    });
    expect(codeFrame.actorId).not.toContain(code);
    expect(codeFrame.actorId).not.toContain(code.slice(0, 8));
    expect(codeFrame.actorId).not.toContain(code.replace(/-/g, '').slice(0, 8));

    // Redeemed: the code's actor stops.
    const exchanged = await redeem(stream.app, { code, verifier });
    expect(exchanged.status).toBe(200);
    expect((await lifeOf(codeFrame.actorId)).at(-1)?.type).toBe('stopped');
    expect(stream.events.text()).not.toContain(code);
    expect(stream.events.text()).not.toContain(exchanged.json.token);
    expect(stream.events.text()).not.toContain(verifier);
  });

  it('a tool call → an inflightRequest actor with principal {id, name} of its token, stopped when the call ends', async () => {
    const name = `Inspector caller ${unique()}`;
    const token = await stream.client.command('tokens.create', { name, level: 'readOnly' });
    stream.events.drain();
    const res = await callTool(stream.app, 'list_tables', { connection_id: 'demo' }, { headers: bearer(token.plaintext) });
    expect(res.status).toBe(200);
    expect(res.json.result.isError).toBe(false);
    const request = await started('inflightRequest');
    expect(request).toEqual({
      type: 'actor',
      actorId: expect.stringMatching(/^inflightRequest:[0-9a-f]{8}$/),
      machine: 'inflightRequest',
      parentId: supervisorId,
      principal: { id: token.id, name },
      state: expect.stringMatching(/^running/),
      at: expect.any(Number),
    });
    expect((await lifeOf(request.actorId)).at(-1)).toMatchObject({ type: 'stopped', machine: 'inflightRequest' });
    expect(stream.events.text()).not.toContain(token.plaintext);
  });

  it('a nested state is named as XState names it: an inflightRequest runs in running.watching (docs/console.md)', async () => {
    const token = await stream.client.command('tokens.create', { name: `Nested ${unique()}`, level: 'readOnly' });
    stream.events.drain();
    await callTool(stream.app, 'list_tables', { connection_id: 'demo' }, { headers: bearer(token.plaintext) });
    const request = await started('inflightRequest');
    const life = await lifeOf(request.actorId);
    expect(life.map((frame) => (frame.type === 'actor' ? frame.state : frame.type === 'transition' ? frame.from : undefined))).toEqual([
      'running.watching',
      'running.watching',
      undefined,
    ]);
  });

  it('a dialog → a consent actor with its principal, stopped once approved; the statement never appears', async () => {
    const marker = `Inspected write ${unique()}`;
    const { request, consent, token, name } = await approvedDialog(marker);
    expect(consent).toMatchObject({ parentId: supervisorId, principal: { id: token.id, name }, state: 'asking' });
    expect(request.principal).toEqual({ id: token.id, name });
    expect((await lifeOf(consent.actorId)).at(-1)?.type).toBe('stopped');
    expect((await lifeOf(request.actorId)).at(-1)?.type).toBe('stopped');
    await stream.events.settle();
    expect(stream.events.text()).not.toContain(marker);
  });

  it('a legacy session → a legacySession actor; revoking its token → active → closed (close, done), stopped', async () => {
    const name = `Inspector legacy ${unique()}`;
    const token = await stream.client.command('tokens.create', { name, level: 'readOnly' });
    stream.events.drain();
    const sessionId = expectSessionOpened(await initializeAs(stream.app, bearer(token.plaintext)));
    const opened = await started('legacySession');
    expect(opened).toMatchObject({ parentId: supervisorId, principal: { id: token.id, name }, state: 'active' });
    expect(opened.actorId).not.toContain(sessionId.slice(0, 8));
    await stream.client.command('tokens.revoke', { id: token.id });
    const life = await lifeOf(opened.actorId);
    expect(life.map((frame) => frame.type)).toEqual(['actor', 'transition', 'stopped']);
    expect(life[1]).toMatchObject({ event: 'close', from: 'active', to: 'closed', status: 'done' });
    expect(stream.events.text()).not.toContain(sessionId);
  });

  describe('an actor that ends sends its last transition (status done) before it is stopped', () => {
    /** The frames about one actor: started, its last transition, stopped — and the transition itself. */
    function expectEnding(life: Frame[], transition: Partial<Frame>): void {
      expect(life.map((frame) => frame.type)).toEqual(['actor', 'transition', 'stopped']);
      expect(life[1]).toEqual({ type: 'transition', actorId: life[0]?.actorId, machine: life[0]?.machine, at: expect.any(Number), ...transition });
    }

    it('pairingRequest approved: awaitingApproval → codePending (approve, done); pairingCode redeemed: pending → spent (exchange, done)', async () => {
      const { request, codeFrame, code, verifier } = await approvedPairing();
      expectEnding(await lifeOf(request.actorId), { event: 'approve', from: 'awaitingApproval', to: 'codePending', status: 'done' });
      expect((await redeem(stream.app, { code, verifier })).status).toBe(200);
      expectEnding(await lifeOf(codeFrame.actorId), { event: 'exchange', from: 'pending', to: 'spent', status: 'done' });
    });

    it('pairingRequest denied: awaitingApproval → denied (deny, done)', async () => {
      stream.events.drain();
      const { sheetId } = openLink(stream.app, `Denied inspected ${unique()}`);
      const request = await started('pairingRequest');
      expect(await stream.client.command('approvals.deny', { id: sheetId })).toEqual({ ok: true });
      expectEnding(await lifeOf(request.actorId), { event: 'deny', from: 'awaitingApproval', to: 'denied', status: 'done' });
    });

    it('inflightRequest: running → completed (done) when its handler finishes', async () => {
      const token = await stream.client.command('tokens.create', { name: `Ending caller ${unique()}`, level: 'readOnly' });
      stream.events.drain();
      expect((await callTool(stream.app, 'list_tables', { connection_id: 'demo' }, { headers: bearer(token.plaintext) })).status).toBe(200);
      const request = await started('inflightRequest');
      const life = await lifeOf(request.actorId);
      expectEnding(life, { event: expect.stringMatching(/^xstate\.done\.actor\./), from: expect.stringMatching(/^running/), to: 'completed', status: 'done' });
    });

    it('consent approved: asking → approved (approve, done)', async () => {
      const { consent } = await approvedDialog(`Ending write ${unique()}`);
      expectEnding(await lifeOf(consent.actorId), { event: 'approve', from: 'asking', to: 'approved', status: 'done' });
    });
  });

  it('a stream opened later starts with the actors alive at that moment', async () => {
    const { sheetId } = openLink(stream.app, `Late viewer ${unique()}`);
    const later = await stream.client.events('/api/inspector/events');
    try {
      let first: SseFrame | undefined;
      for await (const frame of later) {
        first = frame;
        break;
      }
      expect(first?.data.type).toBe('live');
      const actors = first?.data.actors as Frame[];
      expect(actors.filter((actor) => actor.machine === 'supervisor')).toHaveLength(1);
      expect(actors.filter((actor) => actor.machine === 'pairingRequest')).toEqual([
        expect.objectContaining({ type: 'actor', state: 'awaitingApproval', parentId: supervisorId }),
      ]);
      // Nothing the first stream saw stop is still listed as alive.
      const stopped = new Set(stream.events.frames.map(data).filter((f) => f.type === 'stopped').map((f) => f.actorId));
      expect(actors.filter((actor) => stopped.has(actor.actorId))).toEqual([]);
    } finally {
      await later.close();
      await stream.client.command('approvals.deny', { id: sheetId });
    }
  });

  it('without the session the feed is 401', async () => {
    const response = await fetch(new URL('/api/inspector/events', stream.client.origin));
    expect(response.status).toBe(401);
    await response.body?.cancel();
  });
});

describe('the inspector feed on the application’s clock', () => {
  const START = Date.UTC(2026, 0, 1);
  const clock = new SimulatedClock();
  let app: TestApp;
  let events: ConsoleEvents;

  beforeAll(async () => {
    clock.set(START);
    app = await startTestApp({ auth: true, clock, deliver: async () => {} });
    events = await (await openConsole(app)).events('/api/inspector/events');
  });
  afterAll(async () => {
    await events?.close();
    await app?.dispose();
  });

  it('`now` and every `at` are the app’s clock; five minutes unanswered → awaitingApproval → expired (done), stopped', async () => {
    const first = await events.next();
    expect(first.data).toMatchObject({ type: 'live', now: START });
    expect((first.data.actors as Frame[]).map((actor) => actor.machine)).toEqual(['supervisor']);

    clock.increment(1_000);
    openLink(app, `Clocked client ${unique()}`);
    const opened = data(await events.next(isFrame('actor', { machine: 'pairingRequest' })));
    expect(opened).toMatchObject({ state: 'awaitingApproval', at: START + 1_000 });

    clock.increment(5 * 60_000);
    const expired = data(await events.next(isFrame('transition', { actorId: opened.actorId })));
    expect(expired).toMatchObject({ from: 'awaitingApproval', to: 'expired', status: 'done', at: START + 1_000 + 5 * 60_000 });
    expect(expired.event).toMatch(/^xstate\.after\./);
    const stopped = data(await events.next(isFrame('stopped', { actorId: opened.actorId })));
    expect(stopped.at).toBe(START + 1_000 + 5 * 60_000);
  });
});

describe('secrets never reach the inspector', () => {
  const stream = withInspectorStream();


  it('a session that pairs, writes a marked statement and opens a legacy session sends no code, token, verifier, statement or session id', async () => {
    // Pairing: verifier, code, the minted token's plaintext.
    const { verifier, sheetId } = openLink(stream.app, `Secretive client ${unique()}`);
    const approved = await stream.client.command('approvals.approve', { id: sheetId, level: 'readWrite' });
    expect(approved).toMatchObject({ ok: true });
    const code = callbackFields((stream.delivered.at(-1) as URL).href).code ?? '';
    expect(code).not.toBe('');
    const exchanged = await redeem(stream.app, { code, verifier });
    expect(exchanged.status).toBe(200);
    const plaintext = exchanged.json.token as string;

    // A write through a confirmation dialog, its statement carrying a marker.
    const marker = `secret-marker-${unique()}${unique()}`;
    const sql = `INSERT INTO genres (name) VALUES ('${marker}')`;
    const pending = callTool(stream.app, 'execute_query', { connection_id: 'demo', sql }, { headers: bearer(plaintext) });
    await expect.poll(async () => (await stream.client.state()).dialogs.some((d: any) => d.statement === sql), { timeout: 5_000, interval: 20 }).toBe(true);
    const dialog = (await stream.client.state()).dialogs.find((d: any) => d.statement === sql);
    await stream.client.command('approvals.approve', { id: dialog.id });
    expect((await pending).json.result.structuredContent).toMatchObject({ rows_affected: 1 });
    // A read that waits on the database: a second inflightRequest actor, after the first is gone.
    expect((await callTool(stream.app, 'list_tables', { connection_id: 'demo' }, { headers: bearer(plaintext) })).status).toBe(200);

    // A legacy session, used once, then closed by revoking the token.
    const sessionId = expectSessionOpened(await initializeAs(stream.app, bearer(plaintext)));
    const listed = await legacyCall(stream.app, sessionId, 'tools/list', {}, { ...bearer(plaintext), 'mcp-protocol-version': '2025-11-25' });
    expect(listed.status).toBe(200);
    await stream.client.command('tokens.revoke', { id: approved.tokenId });
    await stream.events.next(isFrame('stopped', { machine: 'legacySession' }));
    await stream.events.settle();

    // The feed saw every kind of actor involved…
    const frames = allFrames(stream.events);
    const machinesSeen = new Set(frames.map((frame) => frame.machine));
    for (const machine of ['supervisor', 'pairingRequest', 'pairingCode', 'inflightRequest', 'consent', 'legacySession']) {
      expect(machinesSeen).toContain(machine);
    }
    // …and none of the secrets, in any form the page could read.
    const late = await stream.client.events('/api/inspector/events');
    await late.next();
    await late.close();
    const machines = await stream.client.get('/api/inspector/machines');
    const feed = [stream.events.text(), late.text(), machines.text].join('\n');
    const secrets: Record<string, string> = {
      code,
      'code without dashes': code.replace(/-/g, ''),
      token: plaintext,
      'token body': plaintext.slice(3),
      verifier,
      marker,
      statement: sql,
      'session id': sessionId,
      'session id without dashes': sessionId.replace(/-/g, ''),
    };
    for (const [what, secret] of Object.entries(secrets)) {
      expect(secret.length, what).toBeGreaterThan(8);
      expect(feed.includes(secret), `the feed holds the ${what}`).toBe(false);
      expect(feed.includes(JSON.stringify(secret).slice(1, -1)), `the feed holds the ${what} (escaped)`).toBe(false);
    }
    expect(feed).not.toMatch(/sl_[A-Za-z0-9_-]{20,}/);
  });

  it('actor ids have the form <machine>:<8 hex>, one per actor, the same in every frame', () => {
    const frames = allFrames(stream.events);
    expect(frames.length).toBeGreaterThan(10);
    const machineOf = new Map<string, string>();
    for (const frame of frames) {
      expect(frame.actorId).toMatch(ACTOR_ID);
      expect(frame.actorId.split(':')[0]).toBe(frame.machine);
      const known = machineOf.get(frame.actorId);
      if (known !== undefined) expect(frame.machine).toBe(known);
      machineOf.set(frame.actorId, frame.machine);
      if (frame.type === 'actor' && frame.parentId !== null) expect(frame.parentId).toMatch(/^supervisor:[0-9a-f]{8}$/);
      if (frame.type === 'transition') expect(frame.event).toMatch(/^[\w.*-]+$/);
    }
    // Each actor started once and stopped at most once.
    const started = frames.filter((f) => f.type === 'actor').map((f) => f.actorId);
    const stopped = frames.filter((f) => f.type === 'stopped').map((f) => f.actorId);
    expect(new Set(started).size).toBe(started.length);
    expect(new Set(stopped).size).toBe(stopped.length);
    for (const id of stopped) expect(started).toContain(id);
    // Distinct actors of one machine get distinct ids.
    expect(new Set(frames.filter((f) => f.machine === 'inflightRequest').map((f) => f.actorId)).size).toBeGreaterThan(1);
  });

  it('frames carry only their documented fields', () => {
    const fields: Record<string, string[]> = {
      actor: ['actorId', 'at', 'machine', 'parentId', 'principal', 'state', 'type'],
      transition: ['actorId', 'at', 'event', 'from', 'machine', 'status', 'to', 'type'],
      stopped: ['actorId', 'at', 'machine', 'type'],
    };
    for (const frame of allFrames(stream.events)) {
      expect(Object.keys(frame).sort()).toEqual(fields[frame.type]);
      if (frame.type === 'actor' && frame.principal !== null) expect(Object.keys(frame.principal).sort()).toEqual(['id', 'name']);
    }
  });
});
