import { randomBytes } from 'node:crypto';
import { SimulatedClock } from 'xstate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLICATION } from '../../src/core/contract.js';
import { type ConsoleClient, consoleOf, exchangeSecret, openConsole, visitLink } from '../helpers/consoleClient.js';
import { parseJson, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * The console bound to its origin (docs/console.md, "Signing in"): a program serving another loopback port
 * receives every cookie the browser sends and can forge any header, so the session never travels in a
 * cookie and a forged `Origin` or `Sec-Fetch-Site` opens nothing. Signing in, the HTML pages a browser
 * lands on without a session or with a spent link, and the session's idle lifetime on the app's clock.
 */

const unique = () => randomBytes(4).toString('hex');
const IDLE_MS = APPLICATION.consoleSessionIdleMs;

type Reply = { status: number; headers: Headers; text: string; json: any };

/** A request carrying exactly `headers` (no session unless they hold one). */
async function raw(origin: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  const response = await fetch(new URL(path, origin), { redirect: 'manual', ...init });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: parseJson(text) };
}

function expectError(reply: Reply, status: number, error: string): void {
  expect({ status: reply.status, type: reply.headers.get('content-type'), error: reply.json?.error }).toEqual({
    status,
    type: 'application/json',
    error,
  });
}

function expectHtml(reply: Reply, status: number, form: 'signedOut' | 'signingIn' | 'badLink'): void {
  expect({ status: reply.status, type: reply.headers.get('content-type') }).toEqual({ status, type: 'text/html; charset=utf-8' });
  expect(reply.text).toMatch(/^<!doctype html>/);
  expect(reply.text).toContain(`<main id="main" class="wrap sign-in" data-sign-in="${form}">`);
  expect(parseJson(reply.text)).toBeUndefined();
}

describe('the console session against another loopback port', () => {
  let app: TestApp;
  let origin: string;
  let client: ConsoleClient;

  beforeAll(async () => {
    app = await startTestApp({ auth: true });
    origin = `http://127.0.0.1:${consoleOf(app).port}`;
    client = await openConsole(app);
  });
  afterAll(() => app?.dispose());

  /** Every header such a program could send: cookies (the session id among them), the console's Origin, same-origin. */
  const forged = (cookie: string) => ({ cookie, origin, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', referer: `${origin}/` });
  const cookies = () => [`sluice_console=${client.session}`, `session=${client.session}; theme=dark`, `authorization=Bearer ${client.session}`];

  it('signing in sets no cookie: the link’s page and the exchange answer without Set-Cookie', async () => {
    const link = consoleOf(app).openUrl();
    const page = await visitLink(link);
    const exchanged = await exchangeSecret(origin, new URL(link).searchParams.get('secret') ?? '');
    expect({ page: page.headers.getSetCookie(), exchange: exchanged.headers.getSetCookie(), status: exchanged.status }).toEqual({
      page: [],
      exchange: [],
      status: 200,
    });
  });

  it('replaying cookies with a forged Origin and Sec-Fetch-Site: GET /api/state is 401 and reads nothing', async () => {
    for (const cookie of cookies()) {
      const reply = await raw(origin, '/api/state', { headers: forged(cookie) });
      expectError(reply, 401, 'unauthenticated');
      expect(reply.text).not.toMatch(/tokens|sheets|mcpUrl/);
    }
  });

  it('the same for POST /api/tokens.create (fullAccess): 401, and no token is made', async () => {
    for (const cookie of cookies()) {
      const name = `forged ${unique()}`;
      const reply = await raw(origin, '/api/tokens.create', {
        method: 'POST',
        headers: { ...forged(cookie), 'content-type': 'application/json' },
        body: JSON.stringify({ name, level: 'fullAccess', connections: 'all', expiresInDays: null }),
      });
      expectError(reply, 401, 'unauthenticated');
      expect(app.tokens.list().map((t) => t.name)).not.toContain(name);
    }
  });

  it('and for both event streams', async () => {
    for (const path of ['/api/events', '/api/inspector/events']) {
      expectError(await raw(origin, path, { headers: { ...forged(cookies()[0] as string), accept: 'text/event-stream' } }), 401, 'unauthenticated');
    }
  });

  it('with the session, a POST needs the console’s exact Origin and, when sent, Sec-Fetch-Site same-origin (else 403 forbidden_origin)', async () => {
    const refused: [string | null, string | undefined][] = [
      [origin, 'cross-site'],
      [origin, 'same-site'],
      [origin, 'none'],
      [origin, 'same-origin, cross-site'],
      [`http://127.0.0.1:${consoleOf(app).port + 1}`, 'same-origin'],
      [`${origin}/`, undefined],
      [null, 'same-origin'],
    ];
    for (const [from, site] of refused) {
      const name = `refused ${unique()}`;
      const reply = await client.post('/api/tokens.create', { name }, { origin: from, headers: site === undefined ? {} : { 'sec-fetch-site': site } });
      expect({ from, site, status: reply.status, error: reply.json?.error }).toEqual({ from, site, status: 403, error: 'forbidden_origin' });
      expect(app.tokens.list().map((t) => t.name)).not.toContain(name);
    }
    const name = `accepted ${unique()}`;
    const accepted = await client.post('/api/tokens.create', { name }, { headers: { 'sec-fetch-site': 'same-origin' } });
    expect(accepted.status).toBe(200);
    expect(app.tokens.list().map((t) => t.name)).toContain(name);
  });

  it('the exchange itself needs the console’s Origin: from another port it is 403 forbidden_origin and the secret stays unspent', async () => {
    const link = consoleOf(app).openUrl();
    const secret = new URL(link).searchParams.get('secret') ?? '';
    const otherPort = `http://127.0.0.1:${consoleOf(app).port === 65535 ? 65534 : consoleOf(app).port + 1}`;
    expectError(await exchangeSecret(origin, secret, otherPort), 403, 'forbidden_origin');
    const crossSite = await raw(origin, '/api/session', {
      method: 'POST',
      headers: { origin, 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' },
      body: JSON.stringify({ secret }),
    });
    expectError(crossSite, 403, 'forbidden_origin');
    expect(consoleOf(app).openUrl()).toBe(link);
    expect((await exchangeSecret(origin, secret)).status).toBe(200);
  });

  it('a session from another sign-in works on its own; each is refused in the other’s cookie', async () => {
    const other = await openConsole(app);
    expect(other.session).not.toBe(client.session);
    expect((await other.get('/api/state')).status).toBe(200);
    expect((await client.get('/api/state')).status).toBe(200);
    const swapped = await raw(origin, '/api/state', { headers: { cookie: `sluice_console=${other.session}` } });
    expectError(swapped, 401, 'unauthenticated');
  });

  it('a used link ends on an HTML page (403) saying so, never JSON', async () => {
    const link = consoleOf(app).openUrl();
    await exchangeSecret(origin, new URL(link).searchParams.get('secret') ?? '');
    const reply = await visitLink(link);
    expectHtml(reply, 403, 'badLink');
    expect(reply.text).toContain('It was used already, or it is wrong');
    expect(reply.text).toContain('run <code>sluice console</code>');
  });

  it('without a session a browser lands on HTML: /signin is the sign-in page, / and /inspector/ are the pages that send it there', async () => {
    const signIn = await raw(origin, '/signin');
    expectHtml(signIn, 200, 'signedOut');
    expect(signIn.text).toContain('run <code>sluice console</code>');
    for (const path of ['/', '/inspector/']) {
      const page = await raw(origin, path);
      expect({ path, status: page.status, type: page.headers.get('content-type') }).toEqual({ path, status: 200, type: 'text/html; charset=utf-8' });
    }
    // Scripts still get JSON.
    expectError(await raw(origin, '/api/state'), 401, 'unauthenticated');
  });

  it('pages answer GET only (405), and an unknown API path with a session is 404 JSON', async () => {
    const post = await raw(origin, '/signin', { method: 'POST', headers: { origin } });
    expect({ status: post.status, allow: post.headers.get('allow'), error: post.json?.error }).toEqual({ status: 405, allow: 'GET', error: 'method_not_allowed' });
    expectError(await client.get('/api/nope'), 404, 'not_found');
  });
});

describe('the console session’s lifetime, on the app’s clock', () => {
  const clock = new SimulatedClock();
  let app: TestApp;

  beforeAll(async () => {
    clock.set(Date.now());
    app = await startTestApp({ auth: true, clock });
  });
  afterAll(() => app?.dispose());

  it(`lives while used: each request starts its ${IDLE_MS / 3_600_000} idle hours again; after that many idle it is 401`, async () => {
    const client = await openConsole(app);
    clock.increment(IDLE_MS - 1);
    expect((await client.get('/api/state')).status).toBe(200);
    clock.increment(IDLE_MS - 1);
    expect((await client.get('/api/activity')).status).toBe(200);
    clock.increment(IDLE_MS);
    expectError(await client.get('/api/state'), 401, 'unauthenticated');
    // Ended for good: requests do not revive it.
    expectError(await client.get('/api/state'), 401, 'unauthenticated');
  });

  it('an open event stream keeps it live however long; once closed, the idle time runs from the close', async () => {
    const client = await openConsole(app);
    const events = await client.events('/api/events');
    expect(events.status).toBe(200);
    clock.increment(3 * IDLE_MS);
    expect((await client.get('/api/state')).status).toBe(200);
    clock.increment(3 * IDLE_MS);
    await events.close();
    // The server sees the close within a turn or two of its loop.
    await new Promise((resolve) => setTimeout(resolve, 200));
    clock.increment(IDLE_MS - 1);
    expect((await client.get('/api/state')).status).toBe(200);
    clock.increment(IDLE_MS);
    expectError(await client.get('/api/state'), 401, 'unauthenticated');
  });

  it('sessions end on their own: one expiring leaves another, used, alive', async () => {
    const idle = await openConsole(app);
    clock.increment(IDLE_MS / 2);
    const busy = await openConsole(app);
    clock.increment(IDLE_MS / 2);
    expectError(await idle.get('/api/state'), 401, 'unauthenticated');
    expect((await busy.get('/api/state')).status).toBe(200);
  });
});
