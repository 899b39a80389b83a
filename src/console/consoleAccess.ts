import { randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/atomicFile.js';

export const CONSOLE_SECRET_FILE = 'console-secret';
export const SESSION_COOKIE = 'sluice_console';

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * Who may use the console: whoever opens it with the one-time secret from the support directory gets a
 * session cookie. The secret is replaced at start and as soon as it is used, so the link cannot be
 * replayed; `sluice console` reads the current one.
 */
export class ConsoleAccess {
  readonly #file: string;
  #secret = '';
  readonly #sessions = new Set<string>();

  constructor(dataDir: string) {
    this.#file = join(dataDir, CONSOLE_SECRET_FILE);
    this.#rotate();
  }

  get secret(): string {
    return this.#secret;
  }

  /** The secret of an opening link: a new session's id when it is the current one, else undefined. */
  open(secret: string): string | undefined {
    if (!sameText(secret, this.#secret)) return undefined;
    this.#rotate();
    const session = randomBytes(32).toString('base64url');
    this.#sessions.add(session);
    return session;
  }

  /** Whether a `Cookie` header carries a session this console opened. */
  admits(cookieHeader: string | undefined): boolean {
    const session = cookieOf(cookieHeader, SESSION_COOKIE);
    return session !== undefined && [...this.#sessions].some((known) => sameText(known, session));
  }

  #rotate(): void {
    this.#secret = randomBytes(24).toString('base64url');
    writeFileAtomic(this.#file, `${this.#secret}\n`);
  }
}

function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
