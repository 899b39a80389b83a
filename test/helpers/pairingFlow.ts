import { expect } from 'vitest';
import { SimulatedClock } from 'xstate';
import type { ApprovalChoice } from '../../machines/pairingRequest.js';
import type { ActivityRow } from '../../src/activity/activityLog.js';
import type { ApprovalSheet } from '../../src/pairing/pairingService.js';
import { challengeFor, createVerifier } from '../../src/pairing/pkce.js';
import { rawPost } from './rawHttp.js';
import { mcp, type RawResponse, startTestApp, type TestApp } from './testApp.js';

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
export type PairingHarness = { app: TestApp; clock: SimulatedClock; delivered: string[] };

export async function startPairingApp(): Promise<PairingHarness> {
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
export function openPairing(h: PairingHarness, options: Omit<LinkOptions, 'challenge'> = {}) {
  const verifier = createVerifier();
  const opened = h.app.pairing.openLink(pairingLink({ ...options, challenge: challengeFor(verifier) }));
  if (!opened.ok) throw new Error(`the pairing link was refused: ${opened.reason}`);
  return { verifier, sheet: opened.sheet };
}

export type Approved = { verifier: string; sheet: ApprovalSheet; tokenId: string; callback: string; code: string };

/** Opens a link and approves it (with `choice`); returns the code read from the delivered callback. */
export function pairAndApprove(
  h: PairingHarness,
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
