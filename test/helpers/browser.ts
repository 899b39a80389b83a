import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { ConsoleServer } from '../../src/console/consoleServer.js';
import { consoleOf } from './consoleClient.js';
import { startTestApp, type TestApp } from './testApp.js';

/**
 * The browser suites' side of the console and the inspector: headless Chromium (Debian's), one browser,
 * app and loopback callback server per suite, console sessions watched for foreign requests and page
 * errors, and small page utilities (focus, screenshots).
 */

export const CHROMIUM = process.env.SLUICE_CHROMIUM ?? '/usr/bin/chromium';

/** Where each test run saves its screenshots (`SLUICE_SCREENSHOTS=docs/screenshots` refreshes the README's). */
export const SCREENSHOTS = process.env.SLUICE_SCREENSHOTS ?? join('test-results', 'screenshots');

/**
 * Whether the browser suites can run: Debian's Chromium must be installed. In CI (`CI` set) its absence
 * fails the run; anywhere else the suites are skipped with the reason printed.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  const reason = `no Chromium at ${CHROMIUM} (apt-get install chromium, or set SLUICE_CHROMIUM)`;
  if (process.env.CI) throw new Error(`CI needs the browser tests: ${reason}`);
  console.warn(`skipping the browser suites: ${reason}`);
  return false;
}

/** How long a suite's set-up may take to launch Chromium (its first launch builds caches). */
export const BROWSER_LAUNCH_TIMEOUT_MS = 60_000;

/** Headless Chromium with nothing reaching the network on its own. */
export function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * The browser globals that functions run in the page (`page.evaluate`) read. The project compiles without
 * the DOM library, so such a function starts with `const web = globalThis as unknown as PageGlobals;`
 * (the cast disappears when it is compiled; the function itself is sent to the page as text).
 */
export type PageGlobals = {
  document: { activeElement: { outerHTML: string } | null; body: unknown };
  navigator: { clipboard: { readText(): Promise<string> } };
  localStorage: { getItem(key: string): string | null };
  getComputedStyle(element: unknown): {
    backgroundColor: string;
    overflowX: string;
    overflowY: string;
    textOverflow: string;
  };
  sluiceTestMark?: boolean;
};

/** Every screenshot is taken at this size, full page. */
export const VIEWPORT = { width: 1280, height: 900 };

/**
 * One browser context on the console: signed in with the application's one-time link (the session lands in
 * the console origin's storage, which every other page of the console in this context shares), watching
 * every request it makes and every error its pages report, so a test can say that nothing left the
 * console's origin and nothing went wrong.
 */
export type ConsoleSession = {
  readonly context: BrowserContext;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** The tab the one-time link was opened in: the console, live. */
  readonly page: Page;
  /** Every URL any page of the context requested, in order. */
  readonly requests: string[];
  /** Uncaught page errors, `console.error` messages (with the page's URL) and HTTP error answers. */
  readonly problems: string[];
  /** A new tab at `path` (on the console's origin), watched like the first one. */
  open(path: string): Promise<Page>;
  /** Asserts that every request stayed on the console's origin and that no page reported an error. */
  expectClean(): void;
  close(): Promise<void>;
};

/** A fresh context (1280×900), signed in with the one-time link, and the console live on its event stream. */
export async function openConsoleSession(
  browser: Browser,
  app: { console: ConsoleServer | undefined },
): Promise<ConsoleSession> {
  const server = consoleOf(app);
  const origin = new URL(server.url).origin;
  const context = await browser.newContext({ viewport: VIEWPORT });
  // A step that cannot happen fails with what it waited for, well before the test's own timeout.
  context.setDefaultTimeout(15_000);
  const requests: string[] = [];
  const problems: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  context.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()} for ${response.request().method()} ${response.url()}`);
  });
  const watch = (page: Page) => {
    page.on('pageerror', (error) => problems.push(`${page.url()}: uncaught ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${page.url()}: console.error ${message.text()}`);
    });
  };
  context.on('page', watch);

  const page = await context.newPage();
  const reply = await page.goto(server.openUrl());
  // The link's sign-in page exchanges its secret for a session, then opens the console itself.
  expect(reply?.status()).toBe(200);
  await page.waitForURL(`${origin}/`);
  await waitForConsoleLive(page);

  return {
    context,
    origin,
    page,
    requests,
    problems,
    async open(path: string) {
      const tab = await context.newPage();
      await tab.goto(`${origin}${path}`);
      return tab;
    },
    expectClean() {
      const foreign = requests.filter((url) => !url.startsWith(`${origin}/`));
      expect(foreign, 'requests that left the console origin').toEqual([]);
      expect(problems, 'errors reported by the pages').toEqual([]);
    },
    close: () => context.close(),
  };
}

/** Where the console's pages keep the session id (`src/console/public/shared/session.js`). */
export const CONSOLE_SESSION_KEY = 'sluice.consoleSession';

/** `POST /api/<command>` from a console page, with its session, as its own scripts send it: the JSON answer. */
export function postFromPage(page: Page, command: string, params: unknown): Promise<unknown> {
  return page.evaluate(
    async ([path, body, key]) => {
      const session = (globalThis as unknown as PageGlobals).localStorage.getItem(key);
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${session}` };
      return (await fetch(path, { method: 'POST', headers, body: JSON.stringify(body) })).json();
    },
    [`/api/${command}`, params, CONSOLE_SESSION_KEY] as const,
  );
}

/** The console page has loaded its state and its event stream is open. */
export async function waitForConsoleLive(page: Page): Promise<void> {
  await page.locator('[data-live-status][data-state="live"]').waitFor();
  await page.locator('main:not([data-loading])').waitFor();
}

/** The inspector's feed is open. */
export async function waitForInspectorLive(page: Page): Promise<void> {
  await page.locator('[data-live-status][data-state="connected"]').waitFor();
}

/** Marks the page, so that a test can later tell it was never reloaded. */
export async function markPage(page: Page): Promise<void> {
  await page.evaluate(() => {
    (globalThis as unknown as PageGlobals).sluiceTestMark = true;
  });
}

export async function stillSamePage(page: Page): Promise<boolean> {
  return page.evaluate(() => (globalThis as unknown as PageGlobals).sluiceTestMark === true);
}

/** A full-page screenshot under SCREENSHOTS; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(SCREENSHOTS, name);
  await page.screenshot({ path, fullPage: true, animations: 'disabled' });
  return path;
}

/** The element that has the keyboard focus is `target`. */
export function isFocused(target: Locator): Promise<boolean> {
  return target.evaluate((el) => el === (globalThis as unknown as PageGlobals).document.activeElement);
}

/** Presses `key` (Tab or Shift+Tab) until `target` has the focus; fails after `limit` presses. */
export async function tabTo(page: Page, target: Locator, key: 'Tab' | 'Shift+Tab' = 'Tab', limit = 120): Promise<number> {
  for (let presses = 0; presses < limit; presses++) {
    if (await isFocused(target)) return presses;
    await page.keyboard.press(key);
  }
  if (await isFocused(target)) return limit;
  const focused = await page.evaluate(
    () => (globalThis as unknown as PageGlobals).document.activeElement?.outerHTML.slice(0, 200) ?? 'nothing',
  );
  throw new Error(`${key} did not reach the target in ${limit} presses (focus is on ${focused})`);
}

/** A client's loopback callback: an HTTP server on 127.0.0.1 that records every URL it is sent. */
export type CallbackServer = {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Every request's URL, as received (path and query), in order. */
  readonly received: URL[];
  close(): Promise<void>;
};

export async function startCallbackServer(): Promise<CallbackServer> {
  const received: URL[] = [];
  let origin = '';
  const server: Server = createServer((req, res) => {
    received.push(new URL(req.url ?? '/', origin));
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('You can close this window.');
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  origin = `http://127.0.0.1:${port}`;
  return {
    port,
    origin,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type BrowserSuite = {
  readonly browser: Browser;
  readonly app: TestApp;
  readonly callbacks: CallbackServer;
  /** Opens a console session on `app` (the suite's by default); it is checked and closed after the test. */
  open(app?: TestApp): Promise<ConsoleSession>;
  /** Checks and closes the test's session now (before its own app is disposed). */
  closeSession(): Promise<void>;
};

/** One browser, one Sluice with authentication on and one callback server for a file's tests. */
export function browserSuite(): BrowserSuite {
  let browser: Browser;
  let app: TestApp;
  let callbacks: CallbackServer;
  let session: ConsoleSession | undefined;
  // Chromium's launch can take well over the default 20 s on a loaded 2-core machine (seen once in CI).
  beforeAll(async () => {
    [browser, app, callbacks] = await Promise.all([launchChromium(), startTestApp({ auth: true }), startCallbackServer()]);
  }, BROWSER_LAUNCH_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await app?.dispose();
    await callbacks?.close();
  });
  const closeSession = async () => {
    const ending = session;
    session = undefined;
    if (!ending) return;
    try {
      ending.expectClean();
    } finally {
      await ending.close();
    }
  };
  afterEach(closeSession);
  return {
    get browser() {
      return browser;
    },
    get app() {
      return app;
    },
    get callbacks() {
      return callbacks;
    },
    async open(target = app) {
      session = await openConsoleSession(browser, target);
      return session;
    },
    closeSession,
  };
}
