import { expect } from 'vitest';
import { SimulatedClock } from 'xstate';
import type { ApprovalChoice } from '../../machines/pairingRequest.js';
import type { ActivityRow } from '../../src/activity/activityLog.js';
import { EXCHANGE } from '../../src/core/contract.js';
import type { ApprovalSheet } from '../../src/runtime/pairingService.js';
import { challengeFor, createVerifier } from '../../src/pairing/pkce.js';
import { rawPost } from './rawHttp.js';
import { SteppingClock } from './steppingClock.js';
import { mcp, parseJson, type RawResponse, startTestApp, type TestApp } from './testApp.js';

/**
 * Pairing from the client's side against a real Sluice with authentication on: deep links, approval,
 * the delivered callback, the code exchange and Bearer calls with the token. `startPairingApp` and the
 * functions after it serve the end-to-end suites; `PairingHarness` (at the end) the model tests.
 */

export const EXCHANGE_PATH = '/v1/integrations/exchange';
/** Where the simulated clock starts: a real date, so token times read naturally. */
export const START_TIME = Date.UTC(2026, 0, 1);
export const DAY_MS = 86_400_000;
export const LOOPBACK_REDIRECT = 'http://127.0.0.1:9/cb';
export const RAYCAST_REDIRECT = 'raycast://extensions/acme/sluice/pair';
export const CLIENT_NAME = 'Test client';
/** A one-time code as issued: a UUID. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An app with authentication on, a simulated clock, and callbacks collected instead of delivered. */
export type PairingApp = { app: TestApp; clock: SimulatedClock; delivered: string[] };

export async function startPairingApp(): Promise<PairingApp> {
  const clock = new SimulatedClock();
  clock.set(START_TIME);
  const delivered: string[] = [];
  const app = await startTestApp({
    auth: true,
    clock,
    deliver: (url) => {
      delivered.push(url.href);
      return Promise.resolve();
    },
  });
  return { app, clock, delivered };
}

export type LinkOptions = {
  client?: string;
  challenge?: string;
  redirect?: string;
  scopes?: string;
  /** `null` leaves `state` out; absent is `s1`. */
  state?: string | null;
  responseMode?: string;
};

/** A `sluice://integrations/pair?…` link; by default the reference client's, with `state=s1`. */
export function pairingLink(options: LinkOptions = {}): string {
  const params = new URLSearchParams({
    client: options.client ?? CLIENT_NAME,
    challenge: options.challenge ?? challengeFor(createVerifier()),
    redirect: options.redirect ?? LOOPBACK_REDIRECT,
    scopes: options.scopes ?? 'readWrite',
  });
  if (options.state !== null) params.set('state', options.state ?? 's1');
  if (options.responseMode !== undefined) params.set('response_mode', options.responseMode);
  return `sluice://integrations/pair?${params.toString()}`;
}

/** Opens a link with a fresh verifier; fails the test unless a sheet opens. */
export function openPairing(h: PairingApp, options: Omit<LinkOptions, 'challenge'> = {}) {
  const verifier = createVerifier();
  const opened = h.app.pairing.openLink(pairingLink({ ...options, challenge: challengeFor(verifier) }));
  if (!opened.ok) throw new Error(`the pairing link was refused: ${opened.reason}`);
  return { verifier, sheet: opened.sheet };
}

export type Approved = { verifier: string; sheet: ApprovalSheet; tokenId: string; callback: string; code: string };

/** Opens a link and approves it (with `choice`); returns the code read from the delivered callback. */
export function pairAndApprove(
  h: PairingApp,
  choice: Partial<ApprovalChoice> = {},
  options: Omit<LinkOptions, 'challenge'> = {},
): Approved {
  const { verifier, sheet } = openPairing(h, options);
  const approved = h.app.pairing.approve(sheet.id, choice);
  if (!approved.ok) throw new Error(`approval was refused: ${approved.reason}`);
  const callback = h.delivered.at(-1);
  if (callback === undefined) throw new Error('no callback was delivered');
  return { verifier, sheet, tokenId: approved.tokenId, callback, code: callbackFields(callback).code ?? '' };
}

/** The fields a callback carries: flat query parameters, or the JSON in `context`. */
export function callbackFields(callback: string): Record<string, string> {
  const params = new URL(callback).searchParams;
  const context = params.get('context');
  if (context !== null) return JSON.parse(context) as Record<string, string>;
  return Object.fromEntries(params);
}

export function exchangeUrl(app: { port: number }): string {
  return `http://127.0.0.1:${app.port}${EXCHANGE_PATH}`;
}

/**
 * `POST /v1/integrations/exchange` over node:http with exactly these headers (none added): a body that
 * is not a string is sent as JSON.
 */
export function exchange(
  app: { port: number },
  body: unknown,
  headers: Record<string, string> = { 'Content-Type': 'application/json' },
): Promise<RawResponse> {
  return rawPost(exchangeUrl(app), typeof body === 'string' ? body : JSON.stringify(body), headers);
}

/** The right verifier for the code: the exchange a client makes. */
export function redeem(app: { port: number }, approved: Pick<Approved, 'code' | 'verifier'>): Promise<RawResponse> {
  return exchange(app, { code: approved.code, code_verifier: approved.verifier });
}

/** An answer outside JSON-RPC: `status` with exactly `{error, error_description}`. */
export function expectExchangeError(res: RawResponse, status: number, error: string, description?: string): void {
  expect({ status: res.status, body: res.json }).toEqual({
    status,
    body: { error, error_description: description ?? expect.any(String) },
  });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
}

/** A successful exchange: `200 {token}`, not cacheable. Returns the token. */
export function expectToken(res: RawResponse): string {
  expect({ status: res.status, keys: Object.keys(res.json ?? {}) }).toEqual({ status: 200, keys: ['token'] });
  expect(res.json.token).toMatch(/^sl_[A-Za-z0-9_-]{43}$/);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return res.json.token as string;
}

/** `tools/list` with the bearer token. */
export function listToolsWith(app: { url: string }, token: string): Promise<RawResponse> {
  return mcp(app, 'tools/list', {}, { headers: { authorization: `Bearer ${token}` } });
}

/** The activity log's `auth` rows, oldest first, optionally only those of one action or outcome. */
export function authRows(app: TestApp, filter: { action?: string; outcome?: ActivityRow['outcome'] } = {}): ActivityRow[] {
  return app.activity
    .list({ category: 'auth', limit: 10_000, ...(filter.outcome ? { outcome: filter.outcome } : {}) })
    .filter((row) => filter.action === undefined || row.action === filter.action)
    .reverse();
}

/** Every row of the activity log as one string, to search for secrets. */
export function wholeActivityLog(app: TestApp): string {
  return JSON.stringify(app.activity.list({ limit: 100_000 }));
}

// ---------------------------------------------------------------------------------------------------
// The model tests' harness.

export type ExchangeReply = { status: number; body: any };

/** One pairing as the client sees it: its verifier, its private redirect, the sheet's id. */
export type ClientPairing = { n: number; sheetId: string; verifier: string; redirect: string };

/**
 * For the model tests: a real Sluice with authentication on, a stepping simulated clock and captured
 * callbacks, plus the client side of pairing (deep link, callback, exchange over HTTP, Bearer calls on /mcp).
 */
export class PairingHarness {
  #opened = 0;
  /** Failed exchanges answered so far: the endpoint locks the address out at five. */
  exchangeFailures = 0;

  private constructor(
    readonly app: TestApp,
    readonly clock: SteppingClock,
    readonly baseline: number,
    /** Timers of an idle app (its periodic token flush): what is left once every pairing is final. */
    readonly baselineTimers: number,
    /** Every callback URL the app delivered, in order. */
    readonly delivered: URL[],
  ) {}

  static async start(): Promise<PairingHarness> {
    const clock = new SteppingClock();
    const delivered: URL[] = [];
    const app = await startTestApp({
      auth: true,
      clock,
      deliver: async (url) => {
        delivered.push(url);
      },
    });
    return new PairingHarness(app, clock, app.liveActors(), clock.pendingTimers(), delivered);
  }

  dispose(): Promise<void> {
    return this.app.dispose();
  }

  /** Opens a deep link with a fresh verifier and a redirect of its own; throws if it is refused. */
  open(level: ApprovalChoice['level'] = 'readWrite'): ClientPairing {
    const n = ++this.#opened;
    const verifier = createVerifier();
    const redirect = `http://127.0.0.1:9/callback/${n}`;
    const link = pairingLink({ client: `Model client ${n}`, challenge: challengeFor(verifier), redirect, scopes: level, state: null });
    const opened = this.app.pairing.openLink(link);
    if (!opened.ok) throw new Error(`pairing link refused: ${opened.reason}`);
    return { n, sheetId: opened.sheet.id, verifier, redirect };
  }

  /** Callbacks delivered to this pairing's redirect. */
  callbacks(pairing: ClientPairing): URL[] {
    return this.delivered.filter((url) => `${url.origin}${url.pathname}` === pairing.redirect);
  }

  /** The code of the pairing's approval callback (throws unless exactly one callback carried a code). */
  codeOf(pairing: ClientPairing): string {
    const codes = this.callbacks(pairing)
      .map((url) => url.searchParams.get('code'))
      .filter((code): code is string => code !== null);
    if (codes.length !== 1) throw new Error(`expected one code for pairing ${pairing.n}, got ${codes.length}`);
    return codes[0]!;
  }

  async exchange(code: string, verifier: string): Promise<ExchangeReply> {
    const response = await fetch(new URL(EXCHANGE.path, this.app.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, code_verifier: verifier }),
    });
    const text = await response.text();
    const parsed: unknown = parseJson(text);
    const body = parsed === undefined ? text : parsed;
    if (response.status !== 200) this.exchangeFailures++;
    return { status: response.status, body };
  }

  /** `tools/list` on /mcp with the token as Bearer: the HTTP status. */
  async toolsListStatus(token: string): Promise<number> {
    return (await listToolsWith(this.app, token)).status;
  }

  /** Ids of the approval sheets on screen. */
  sheetIds(): string[] {
    return this.app.pairing
      .approvals()
      .map((sheet) => sheet.id)
      .sort();
  }
}

/** A verifier that is well formed but does not hash to `challengeFor(good)`. */
export function wrongVerifier(good: string): string {
  let bad = createVerifier();
  while (bad === good) bad = createVerifier();
  return bad;
}
