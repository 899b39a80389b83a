import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BROWSER_LAUNCH_TIMEOUT_MS,
  CONSOLE_SESSION_KEY,
  chromiumAvailable,
  type ConsoleSession,
  launchChromium,
  openConsoleSession,
  type PageGlobals,
  VIEWPORT,
  waitForConsoleLive,
} from '../helpers/browser.js';
import { consoleOf, openConsole } from '../helpers/consoleClient.js';
import { parseJson, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * The console bound to its origin, in real Chromium (docs/console.md, "Signing in"). Cookies do not tell
 * loopback ports apart, so a page served from another 127.0.0.1 port shares the browser's cookie jar with
 * the console: here it tries to read the console's state and to create a token from the page, while its
 * server records every Cookie header the browser sends it and replays them from Node with a forged
 * Origin. All of it fails, and the console goes on working. Also: the HTML pages a browser without a
 * session, or with a spent link, lands on.
 */

const canRun = chromiumAvailable();
const unique = () => randomBytes(4).toString('hex');

/** What the other port's page reports: each attempt's status and body, or the error that stopped it. */
type Attempt = { status: number; type: string; body: string } | { error: string };
type AttackReport = {
  state: Attempt;
  create: Attempt;
  createPlain: Attempt;
  createNoCors: Attempt;
  events: Attempt;
  storedSession: string | null;
  cookie: string;
};

/** The other port's script: everything a page there can try against the console, reported as JSON. */
const ATTACK_SCRIPT = `
const target = new URLSearchParams(location.search).get('console');
const body = JSON.stringify({ name: 'from another port', level: 'fullAccess', connections: 'all', expiresInDays: null });
async function attempt(run) {
  try {
    const response = await run();
    return { status: response.status, type: response.type, body: await response.text() };
  } catch (error) {
    return { error: error.name };
  }
}
const report = {
  state: await attempt(() => fetch(target + '/api/state', { credentials: 'include' })),
  create: await attempt(() => fetch(target + '/api/tokens.create', {
    method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body })),
  createPlain: await attempt(() => fetch(target + '/api/tokens.create', {
    method: 'POST', credentials: 'include', headers: { 'content-type': 'text/plain' }, body })),
  createNoCors: await attempt(() => fetch(target + '/api/tokens.create', {
    method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body })),
  events: await attempt(() => fetch(target + '/api/events', { credentials: 'include' })),
  storedSession: localStorage.getItem('${CONSOLE_SESSION_KEY}'),
  cookie: document.cookie,
};
await fetch('/report', { method: 'POST', body: JSON.stringify(report) });
document.body.dataset.done = 'true';
`;

/** A program serving another loopback port: its page, a cookie of its own, and every Cookie header it receives. */
type OtherPort = { origin: string; cookies: string[]; report(): Promise<AttackReport>; close(): Promise<void> };

async function startOtherPort(): Promise<OtherPort> {
  const cookies: string[] = [];
  let resolveReport: (report: AttackReport) => void = () => undefined;
  const reported = new Promise<AttackReport>((resolve) => (resolveReport = resolve));
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.cookie) cookies.push(req.headers.cookie);
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path === '/report') {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (text += chunk));
      req.on('end', () => {
        resolveReport(JSON.parse(text) as AttackReport);
        res.writeHead(204).end();
      });
      return;
    }
    if (path === '/attack.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(ATTACK_SCRIPT);
      return;
    }
    // Cookies are per host, not per port: this one reaches the console too.
    res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': `tracker=${unique()}; Path=/` });
    res.end('<!doctype html><title>another program</title><script type="module" src="/attack.js"></script>');
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    cookies,
    report: () => reported,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const storedSession = (page: Page) =>
  page.evaluate((key) => (globalThis as unknown as PageGlobals).localStorage.getItem(key), CONSOLE_SESSION_KEY);

describe.runIf(canRun)('the console is bound to its origin (Chromium)', () => {
  let browser: Browser;
  let app: TestApp;
  let session: ConsoleSession | undefined;
  let other: OtherPort | undefined;

  beforeAll(async () => {
    [browser, app] = await Promise.all([launchChromium(), startTestApp({ auth: true })]);
  }, BROWSER_LAUNCH_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await app?.dispose();
  });
  afterEach(async () => {
    await session?.close();
    await other?.close();
    session = undefined;
    other = undefined;
  });

  it('a page on another loopback port can neither read the console’s state nor create a token; its cookies, replayed with a forged Origin, open nothing', async () => {
    session = await openConsoleSession(browser, app);
    const { origin, page } = session;
    const sessionId = await storedSession(page);
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    other = await startOtherPort();
    const tokensBefore = app.tokens.list().length;

    const attacker = await session.context.newPage();
    await attacker.goto(`${other.origin}/?console=${encodeURIComponent(origin)}`);
    const report = await other.report();

    // From the page: a cross-origin read is blocked (no CORS), a JSON POST dies at its preflight, a
    // simple or no-cors POST reaches the console without a session and changes nothing.
    expect(report.state).toEqual({ error: 'TypeError' });
    expect(report.create).toEqual({ error: 'TypeError' });
    expect(report.createPlain).toEqual({ error: 'TypeError' });
    expect(report.createNoCors).toEqual({ status: 0, type: 'opaque', body: '' });
    expect(report.events).toEqual({ error: 'TypeError' });
    // Its own origin's storage is its own: the console's session is not there.
    expect(report.storedSession).toBeNull();
    expect(report.cookie).toMatch(/^tracker=[0-9a-f]{8}$/);
    expect(app.tokens.list()).toHaveLength(tokensBefore);

    // What the other port's server saw: the cookies the browser holds, never the console's session.
    expect(other.cookies.length).toBeGreaterThan(0);
    for (const cookie of other.cookies) expect(cookie).not.toContain(sessionId);

    // Replayed from Node with every header forged: 401, nothing read, nothing made.
    const forged = { origin, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', referer: `${origin}/` };
    for (const cookie of new Set(other.cookies)) {
      const state = await fetch(`${origin}/api/state`, { headers: { ...forged, cookie } });
      expect({ cookie, status: state.status, body: parseJson(await state.text())?.error }).toEqual({ cookie, status: 401, body: 'unauthenticated' });
      const create = await fetch(`${origin}/api/tokens.create`, {
        method: 'POST',
        headers: { ...forged, cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `replayed ${unique()}`, level: 'fullAccess', connections: 'all', expiresInDays: null }),
      });
      expect({ cookie, status: create.status, body: parseJson(await create.text())?.error }).toEqual({ cookie, status: 401, body: 'unauthenticated' });
    }
    expect(app.tokens.list()).toHaveLength(tokensBefore);

    // The console still works: reloaded (the tracker cookie rides along; it is ignored), live, and its
    // own form creates a token.
    const cookiesSentToConsole: string[] = [];
    page.on('request', (request) => {
      void request.allHeaders().then((headers) => {
        if (headers.cookie) cookiesSentToConsole.push(headers.cookie);
      });
    });
    await page.reload();
    await waitForConsoleLive(page);
    await expect.poll(() => cookiesSentToConsole.some((cookie) => /tracker=/.test(cookie))).toBe(true);
    const name = `Still working ${unique()}`;
    await page.locator('#token-name').fill(name);
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.locator('[data-token-secret]:not([hidden])').waitFor();
    expect(app.tokens.list().map((t) => t.name)).toContain(name);

    // The console's own pages reported nothing; the only refusals were the other page's attempts.
    const consoleProblems = session.problems.filter((problem) => !problem.startsWith(`${other!.origin}/`));
    expect(consoleProblems.filter((problem) => !problem.startsWith('HTTP '))).toEqual([]);
    for (const problem of consoleProblems) expect(problem).toMatch(new RegExp(`^HTTP 401 for (GET|POST) ${origin}/api/(state|tokens\\.create|events)$`));
  });

  it('a browser without a session is sent to the HTML sign-in page from the console and from the inspector', async () => {
    const context = await browser.newContext({ viewport: VIEWPORT });
    try {
      const page = await context.newPage();
      const { origin } = new URL(consoleOf(app).url);
      for (const path of ['/', '/inspector/']) {
        await page.goto(`${origin}${path}`);
        await page.waitForURL(`${origin}/signin`);
        await page.locator('main[data-sign-in="signedOut"]').waitFor();
        expect(await page.locator('h1').textContent()).toBe('Sign in to the Sluice console');
        expect(await page.locator('main').textContent()).toContain('run sluice console in a terminal');
      }
    } finally {
      await context.close();
    }
  });

  it('a session Sluice no longer knows (it restarted, say) is forgotten, and the page shows the sign-in page', async () => {
    session = await openConsoleSession(browser, app);
    const { page, origin } = session;
    const stale = randomBytes(32).toString('base64url');
    await page.evaluate(
      ([key, id]) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem(key, id),
      [CONSOLE_SESSION_KEY, stale] as const,
    );
    await page.reload();
    await page.waitForURL(`${origin}/signin`);
    await page.locator('main[data-sign-in="signedOut"]').waitFor();
    expect(await storedSession(page)).toBeNull();
  });

  it('a used sign-in link ends on the HTML page saying so, with no secret left in the address bar', async () => {
    const context = await browser.newContext({ viewport: VIEWPORT });
    try {
      const link = consoleOf(app).openUrl();
      await openConsole(app);
      const page = await context.newPage();
      const reply = await page.goto(link);
      expect(reply?.status()).toBe(403);
      await page.locator('main[data-sign-in="badLink"]').waitFor();
      expect(await page.locator('h1').textContent()).toBe('This sign-in link cannot be used');
      expect(await storedSession(page)).toBeNull();

      // A current link signs in and takes its secret out of the address bar and the history.
      const fresh = consoleOf(app).openUrl();
      const tab = await context.newPage();
      await tab.goto(fresh);
      await tab.waitForURL(`${new URL(fresh).origin}/`);
      await waitForConsoleLive(tab);
      expect(await storedSession(tab)).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await tab.goBack();
      expect(tab.url()).not.toContain('secret=');
    } finally {
      await context.close();
    }
  });
});
