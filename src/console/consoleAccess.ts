import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/atomicFile.js';
import type { AppClock } from '../core/clock.js';
import { APPLICATION } from '../core/contract.js';

export const CONSOLE_SECRET_FILE = 'console-secret';

/** The one-time link that signs a browser in to the console on `port`, for its current `secret`. */
export const consoleSignInLink = (port: number, secret: string) => `http://127.0.0.1:${port}/open?secret=${secret}`;

/** A session id: 32 random bytes, base64url, as the page sends it in `Authorization: Bearer …`. */
const SESSION_HEADER = /^Bearer ([A-Za-z0-9_-]{43})$/;

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

/** Sessions are kept under a digest of their id, so finding one compares nothing a caller chose. */
const digest = (session: string) => createHash('sha256').update(session).digest('hex');

type Session = { lastUsed: number; openStreams: number };

/**
 * Who may use the console (docs/console.md, "Signing in"): whoever holds the one-time secret from the
 * support directory exchanges it for a session id, which the page keeps in its own origin's storage and
 * sends as a header. Never a cookie: cookies do not tell ports apart, so every program on another
 * loopback port would receive it. The secret is replaced at start and as soon as it is used; a session
 * ends after `APPLICATION.consoleSessionIdleMs` without a request while none of its event streams is open,
 * and with the application.
 */
export class ConsoleAccess {
  readonly #file: string;
  readonly #clock: AppClock;
  #secret = '';
  readonly #sessions = new Map<string, Session>();

  constructor(dataDir: string, clock: AppClock) {
    this.#file = join(dataDir, CONSOLE_SECRET_FILE);
    this.#clock = clock;
    this.#rotate();
  }

  get secret(): string {
    return this.#secret;
  }

  /** Whether `secret` is the current one (it stays so: only `signIn` spends it). */
  isCurrent(secret: string): boolean {
    return sameText(secret, this.#secret);
  }

  /** A new session's id when `secret` is the current one (which it then no longer is), else undefined. */
  signIn(secret: string): string | undefined {
    if (!this.isCurrent(secret)) return undefined;
    this.#rotate();
    for (const [key, session] of this.#sessions) if (this.#expired(session)) this.#sessions.delete(key);
    const id = randomBytes(32).toString('base64url');
    this.#sessions.set(digest(id), { lastUsed: this.#clock.now(), openStreams: 0 });
    return id;
  }

  /**
   * The live session an `Authorization` header names (its idle time starts again), else undefined.
   * The returned key is what `holdOpen` takes; it is not the session id.
   */
  admit(authorization: string | undefined): string | undefined {
    const id = SESSION_HEADER.exec(authorization ?? '')?.[1];
    if (id === undefined) return undefined;
    const key = digest(id);
    const session = this.#sessions.get(key);
    if (!session) return undefined;
    if (this.#expired(session)) {
      this.#sessions.delete(key);
      return undefined;
    }
    session.lastUsed = this.#clock.now();
    return key;
  }

  /** Keeps an admitted session live while one of its event streams is open; returns the release. */
  holdOpen(key: string): () => void {
    const session = this.#sessions.get(key);
    if (!session) return () => undefined;
    session.openStreams += 1;
    return () => {
      session.openStreams -= 1;
      session.lastUsed = this.#clock.now();
    };
  }

  #expired(session: Session): boolean {
    return session.openStreams === 0 && this.#clock.now() - session.lastUsed >= APPLICATION.consoleSessionIdleMs;
  }

  #rotate(): void {
    this.#secret = randomBytes(24).toString('base64url');
    writeFileAtomic(this.#file, `${this.#secret}\n`);
  }
}
