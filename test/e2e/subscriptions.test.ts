import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { callControl } from '../../src/cli/controlClient.js';
import { type EventStream, listen } from '../helpers/eventStream.js';
import { initialize, legacyCall } from '../helpers/legacyProtocol.js';
import { callTool, mcp, modernMeta, post, startTestApp, type TestApp, mirroredHeaders } from '../helpers/testApp.js';

const SUB = 'io.modelcontextprotocol/subscriptionId';
const DEMO_SCHEMA = 'sluice://connections/demo/schema';

let app: TestApp;
let clock: SimulatedClock;
let auth: Record<string, string>;
let token: { id: string };

beforeEach(async () => {
  clock = new SimulatedClock();
  clock.set(Date.now());
  app = await startTestApp({ auth: true, clock, callerLimits: { requestsPerWindow: 240, windowSeconds: 60, concurrent: 1 } });
  const minted = app.tokens.mint({ name: 'listener', level: 'fullAccess', connections: 'all', expiresInDays: null, now: clock.now() });
  token = minted.record;
  auth = { authorization: `Bearer ${minted.plaintext}` };
});
afterEach(() => app.dispose());

async function acknowledged(stream: EventStream, id: string | number) {
  expect(stream.response.status).toBe(200);
  expect(stream.response.headers.get('content-type')).toBe('text/event-stream');
  const ack = await stream.next();
  expect(ack).toMatchObject({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: { [SUB]: id } } });
  return ack.params.notifications;
}

async function expectComplete(stream: EventStream, id: string | number) {
  expect(await stream.next()).toEqual({
    jsonrpc: '2.0',
    id,
    result: { resultType: 'complete', _meta: { [SUB]: id, 'io.modelcontextprotocol/serverInfo': expect.objectContaining({ name: 'sluice' }) } },
  });
  expect(await stream.ended()).toBe(true);
}

describe('subscriptions/listen', () => {
  it('acknowledges the subset it will honour, every frame carrying the subscription id', async () => {
    const stream = await listen(app, 'sub-1', {
      resourcesListChanged: true,
      resourceSubscriptions: [DEMO_SCHEMA, 'sluice://connections/nope/schema', 'sluice://connections/demo/tables'],
      toolsListChanged: true,
      promptsListChanged: true,
    }, auth);
    // Prompts never change; tools do when tools.json does (issue 32).
    expect(await acknowledged(stream, 'sub-1')).toEqual({ resourcesListChanged: true, resourceSubscriptions: [DEMO_SCHEMA], toolsListChanged: true });
    await stream.cancel();
  });

  it('sends a `:` keep-alive every 15 s and is exempt from the 330 s deadline and the per-caller limits', async () => {
    const first = await listen(app, 1, {}, auth);
    const second = await listen(app, 2, {}, auth); // concurrency limit is 1 per caller: subscriptions do not count
    await acknowledged(first, 1);
    await acknowledged(second, 2);
    clock.increment(15_000);
    expect(await first.next()).toBe(':');
    for (let i = 0; i < 30; i++) clock.increment(15_000); // 465 s: no deadline
    expect(await first.next()).toBe(':');
    expect((await callTool(app, 'list_connections', {}, { headers: auth })).status).toBe(200);
    await first.cancel();
    await second.cancel();
  });

  it('tells a subscriber of a schema URI when that schema changes through Sluice', async () => {
    const stream = await listen(app, 'ddl', { resourceSubscriptions: [DEMO_SCHEMA] }, auth);
    await acknowledged(stream, 'ddl');
    const elicitation = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const args = { connection_id: 'demo', sql: 'CREATE TABLE wishlist (id INTEGER PRIMARY KEY)' };
    const asked = await callTool(app, 'execute_query', args, { headers: auth, extraMeta: elicitation });
    const accepted = await mcp(
      app,
      'tools/call',
      {
        name: 'execute_query',
        arguments: args,
        requestState: asked.json.result.requestState,
        inputResponses: { approve_statement: { action: 'accept', content: { approved: true } } },
      },
      { headers: auth, extraMeta: elicitation },
    );
    expect(accepted.json.result.structuredContent.statement_kind).toBe('ddl');
    expect(await stream.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: DEMO_SCHEMA, _meta: { [SUB]: 'ddl' } },
    });
    await stream.cancel();
  });

  it('notices a schema change made outside Sluice within 5 s', async () => {
    const stream = await listen(app, 'ext', { resourceSubscriptions: [DEMO_SCHEMA] }, auth);
    await acknowledged(stream, 'ext');
    // The first check (real database I/O) records the schema as it is; a change made before it has
    // finished is part of that baseline, so a slow machine gets another change after each poll.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const next = stream.next();
    let heard: unknown;
    for (let change = 1; change <= 5 && heard === undefined; change++) {
      const db = new Database(join(app.dataDir, 'demo.sqlite'));
      db.exec(`CREATE TABLE made_elsewhere_${change} (x)`);
      db.close();
      clock.increment(5_000);
      heard = await Promise.race([next, new Promise((resolve) => setTimeout(resolve, 2_000, undefined))]);
    }
    expect(heard).toMatchObject({ method: 'notifications/resources/updated', params: { uri: DEMO_SCHEMA } });
    await stream.cancel();
  });

  it('tells a list subscriber when the set of connections it can see changes', async () => {
    const stream = await listen(app, 'list', { resourcesListChanged: true }, auth);
    await acknowledged(stream, 'list');
    const path = join(app.dataDir, 'extra.sqlite');
    new Database(path).close();
    await callControl(app.dataDir, 'connections.add', { id: 'extra', name: 'Extra', engine: 'sqlite', path, aiPolicy: 'always' });
    expect(await stream.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/list_changed',
      params: { _meta: { [SUB]: 'list' } },
    });
    await stream.cancel();
  });

  it('closes with a complete response on notifications/cancelled from its caller', async () => {
    const stream = await listen(app, 'c1', {}, auth);
    await acknowledged(stream, 'c1');
    const params = { requestId: 'c1', _meta: modernMeta() };
    const res = await post(
      app.url,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params }),
      { ...mirroredHeaders('notifications/cancelled', params), ...auth },
    );
    expect(res.status).toBe(202);
    await expectComplete(stream, 'c1');
    expect(app.liveActors()).toBe(0);
  });

  it('closes with a complete response when its token is revoked, and when the server stops', async () => {
    const revoked = await listen(app, 'r1', {}, auth);
    await acknowledged(revoked, 'r1');
    app.tokens.revoke(token.id, clock.now());
    await expectComplete(revoked, 'r1');

    const other = app.tokens.mint({ name: 'other', level: 'readOnly', connections: 'all', expiresInDays: null, now: clock.now() });
    const stopping = await listen(app, 's1', {}, { authorization: `Bearer ${other.plaintext}` });
    await acknowledged(stopping, 's1');
    const stopped = app.stop();
    await expectComplete(stopping, 's1');
    await stopped;
  });

  it('closes when the client goes away (found by the 1 s poll)', async () => {
    const client = new AbortController();
    const stream = await listen(app, 'gone', {}, auth, client.signal);
    await acknowledged(stream, 'gone');
    expect(app.liveActors()).toBe(1);
    client.abort();
    await stream.cancel();
    await expect
      .poll(() => {
        clock.increment(1_000);
        return app.liveActors();
      })
      .toBe(0);
  });

  it('refuses a request without params.notifications (-32602) and legacy clients (-32601)', async () => {
    const bad = await mcp(app, 'subscriptions/listen', {}, { headers: auth });
    expect([bad.status, bad.json.error.code]).toEqual([400, -32602]);
    const { sessionId } = await initialize(app, auth);
    const legacy = await legacyCall(app, sessionId, 'subscriptions/listen', { notifications: {} }, auth);
    expect([legacy.status, legacy.json.error.code]).toEqual([404, -32601]);
  });
});
