import { SimulatedClock } from 'xstate';
import type { ApprovalChoice } from '../../machines/pairingRequest.js';
import { challengeFor, createVerifier } from '../../src/pairing/pkce.js';
import { EXCHANGE_PATH } from '../../src/transport/exchangeEndpoint.js';
import { mcp, startTestApp, type TestApp } from './testApp.js';

/**
 * A SimulatedClock whose `advance(ms)` stops at every timer due on the way, so that a timer started by
 * another timer (a code's tombstone starts when the code expires) runs from the moment it would have
 * started on a real clock. A bare `increment(12 min)` would start the tombstone at the end of the jump.
 */
export class SteppingClock extends SimulatedClock {
  readonly #due = new Map<number, number>();

  override setTimeout(fn: (...args: any[]) => void, timeout: number): number {
    const id: number = super.setTimeout(() => {
      this.#due.delete(id);
      fn();
    }, timeout);
    this.#due.set(id, this.now() + timeout);
    return id;
  }

  override clearTimeout(id: number): void {
    this.#due.delete(id);
    super.clearTimeout(id);
  }

  /** Moves time forward by `ms`, firing every timer at its own due time, in order. */
  advance(ms: number): void {
    const target = this.now() + ms;
    for (;;) {
      const next = Math.min(...[...this.#due.values()].filter((due) => due <= target));
      if (!Number.isFinite(next)) break;
      this.set(Math.max(next, this.now()));
    }
    this.set(target);
  }

  /** Timers still waiting (XState's delayed events of live actors). */
  pendingTimers(): number {
    return this.#due.size;
  }
}

export type ExchangeReply = { status: number; body: any };

/** One pairing as the client sees it: its verifier, its private redirect, the sheet's id. */
export type ClientPairing = { n: number; sheetId: string; verifier: string; redirect: string };

/**
 * A real Sluice with authentication on, a stepping simulated clock and captured callbacks, plus the
 * client side of pairing (deep link, callback, exchange over HTTP, Bearer calls on /mcp).
 */
export class PairingHarness {
  #opened = 0;
  /** Failed exchanges answered so far: the endpoint locks the address out at five. */
  exchangeFailures = 0;

  private constructor(
    readonly app: TestApp,
    readonly clock: SteppingClock,
    readonly baseline: number,
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
    return new PairingHarness(app, clock, app.liveActors(), delivered);
  }

  dispose(): Promise<void> {
    return this.app.dispose();
  }

  /** Opens a deep link with a fresh verifier and a redirect of its own; throws if it is refused. */
  open(level: ApprovalChoice['level'] = 'readWrite'): ClientPairing {
    const n = ++this.#opened;
    const verifier = createVerifier();
    const redirect = `http://127.0.0.1:9/callback/${n}`;
    const link = new URL('sluice://integrations/pair');
    link.searchParams.set('client', `Model client ${n}`);
    link.searchParams.set('challenge', challengeFor(verifier));
    link.searchParams.set('redirect', redirect);
    link.searchParams.set('scopes', level);
    const opened = this.app.pairing.openLink(link.href);
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
    const response = await fetch(new URL(EXCHANGE_PATH, this.app.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, code_verifier: verifier }),
    });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    if (response.status !== 200) this.exchangeFailures++;
    return { status: response.status, body };
  }

  /** `tools/list` on /mcp with the token as Bearer: the HTTP status. */
  async toolsListStatus(token: string): Promise<number> {
    const res = await mcp(this.app, 'tools/list', {}, { headers: { authorization: `Bearer ${token}` } });
    return res.status;
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
