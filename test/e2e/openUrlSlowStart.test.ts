import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startConsoleServer } from '../../src/console/consoleServer.js';
import { openUrl } from '../../src/cli/openUrl.js';
import { openConsoleLink } from '../helpers/consoleClient.js';
import { startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * Issue 29, item 1: a deep link that arrives while Sluice is still starting (a cold start: `open-url`
 * starts it and speaks as soon as the control socket answers) brings the approval sheet up in the
 * browser. The console's start is slowed through `startApp`'s `startConsole`; the operating system's
 * URL opener is a fake that records what it was asked to open.
 */

const opened = vi.hoisted((): string[] => []);
vi.mock(import('../../src/platform/urlOpener.js'), async (original) => ({
  ...(await original()),
  openWithOs: async (url: string) => {
    opened.push(url);
  },
}));

/** How long the slowed console takes to start: longer than `open-url` needs once it is answered. */
const CONSOLE_START_MS = 1_000;

const LINK =
  `sluice://integrations/pair?client=Slow%20Start&challenge=${'a'.repeat(43)}` +
  `&redirect=${encodeURIComponent('http://127.0.0.1:9/callback')}&scopes=readOnly`;

/** A console whose start first waits CONSOLE_START_MS, then starts for real (or fails, when `fails`); `entered` once it has begun. */
function slowConsole(fails = false) {
  let entered!: () => void;
  const started = new Promise<void>((resolve) => (entered = resolve));
  const startConsole: typeof startConsoleServer = async (...args) => {
    entered();
    await delay(CONSOLE_START_MS);
    if (fails) throw new Error('the console could not start');
    return startConsoleServer(...args);
  };
  return { startConsole, started };
}

/** `sluice open-url URL` run in this process; what it wrote to stdout, or what it threw. */
async function runOpenUrl(dataDir: string): Promise<{ stdout: string; error?: Error }> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    written.push(String(chunk));
    return true;
  });
  try {
    await openUrl(['--data-dir', dataDir, LINK]);
    return { stdout: written.join('') };
  } catch (error) {
    return { stdout: written.join(''), error: error as Error };
  } finally {
    spy.mockRestore();
  }
}

const sheetLine = (id: string) =>
  `Slow Start asks for readOnly access; approval ${id} is waiting (300 s left): sluice approve ${id} | sluice deny ${id}\n`;

describe('sluice open-url while Sluice is still starting (issue 29)', () => {
  const cleanup: (() => unknown)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
    opened.length = 0;
  });

  function freshDataDir(): string {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-slow-start-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    return dataDir;
  }

  it('a link handed over before the console listens opens the approval sheet in the browser once it does', async () => {
    const dataDir = freshDataDir();
    const slow = slowConsole();
    const starting = startTestApp({ dataDir, startConsole: slow.startConsole });
    cleanup.push(async () => (await starting.catch(() => undefined))?.dispose());
    // The control socket is bound (the support directory claimed); the console is not listening yet.
    await slow.started;

    const { stdout, error } = await runOpenUrl(dataDir);
    const app: TestApp = await starting;
    expect(error).toBeUndefined();
    const page = join(dataDir, 'console-open.html');
    expect(opened).toEqual([pathToFileURL(page).href]);
    const [sheet] = app.pairing.sheets();
    expect(stdout).toBe(`${sheetLine(sheet!.id)}the approval sheet is open in the console, in your browser\n`);

    // The page the browser was sent to leads to the console, which shows the sheet waiting.
    const link = /url=(http:\/\/127\.0\.0\.1:\d+\/open\?secret=[\w-]+)">/.exec(readFileSync(page, 'utf8'))?.[1];
    expect(link).toBe(app.console!.openUrl());
    const signedIn = await openConsoleLink(link!);
    const { sheets } = (await signedIn.state()) as { sheets: { id: string; clientName: string; status: string }[] };
    expect(sheets).toContainEqual(expect.objectContaining({ id: sheet!.id, clientName: 'Slow Start', status: 'awaitingApproval' }));
  });

  it('without a console (--no-console) it says how to answer from the command line, and opens no browser', async () => {
    const app = await startTestApp({ dataDir: freshDataDir(), consolePort: false });
    cleanup.push(() => app.dispose());
    const { stdout, error } = await runOpenUrl(app.dataDir);
    expect(error).toBeUndefined();
    const [sheet] = app.pairing.sheets();
    expect(stdout).toBe(`${sheetLine(sheet!.id)}Sluice runs without a console: answer with sluice approve or deny\n`);
    expect(opened).toEqual([]);
  });

  it('a console that fails to start ends the start, and the waiting link is told so instead of hanging', async () => {
    const dataDir = freshDataDir();
    const slow = slowConsole(true);
    const startFailure = startTestApp({ dataDir, startConsole: slow.startConsole }).then(
      () => undefined,
      (failure: Error) => failure.message,
    );
    await slow.started;

    const { stdout, error } = await runOpenUrl(dataDir);
    expect(await startFailure).toBe('the console could not start');
    expect(error?.message).toBe(
      `Sluice (support directory ${dataDir}) stopped before it answered pairing.openUrl: it was stopped, or failed to start`,
    );
    expect(stdout).toBe('');
    expect(opened).toEqual([]);
  });
});
