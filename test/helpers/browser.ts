import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

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
