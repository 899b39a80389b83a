import type { AppOptions } from '../../src/app/app.js';
import { startTestApp, type TestApp } from '../helpers/testApp.js';
import { FuzzClient } from './fuzzHttp.js';

export type FuzzApp = {
  app: TestApp;
  /** A minted readOnly token (never expires, every connection). */
  token: string;
  client: FuzzClient;
  /** Live actors once started, before any fuzzing. */
  baseline: number;
  /** Pairing callbacks the app would have opened (never delivered anywhere). */
  delivered: string[];
  dispose(): Promise<void>;
};

/**
 * One real Sluice per fuzzing file: authentication on, a readOnly token, no console, callbacks collected
 * instead of delivered, and the per-caller request rate and the bad-token budget raised so that thousands
 * of cases reach the layers under test instead of `-33010` (both limits have tests of their own).
 */
export async function startFuzzApp(options: Partial<AppOptions> = {}): Promise<FuzzApp> {
  const delivered: string[] = [];
  const app = await startTestApp({
    auth: true,
    consolePort: false,
    callerLimits: { requestsPerWindow: 1_000_000_000, windowSeconds: 60, concurrent: 8 },
    unverifiedBearers: { perWindow: 1_000_000_000, windowMs: 10_000 },
    deliver: (url) => {
      delivered.push(url.href);
      return Promise.resolve();
    },
    ...options,
  });
  const { plaintext } = app.tokens.mint({
    name: 'fuzz',
    level: 'readOnly',
    connections: 'all',
    expiresInDays: null,
    now: options.clock?.now() ?? Date.now(),
  });
  const client = new FuzzClient(app.port);
  return {
    app,
    token: plaintext,
    client,
    baseline: app.liveActors(),
    delivered,
    async dispose() {
      client.close();
      await app.dispose();
    },
  };
}

/** Waits (up to `withinMs`) until `read()` is at most `limit`; returns the last reading. */
export async function settle(read: () => number, limit: number, withinMs = 5_000): Promise<number> {
  const until = performance.now() + withinMs;
  let value = read();
  while (value > limit && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    value = read();
  }
  return value;
}
