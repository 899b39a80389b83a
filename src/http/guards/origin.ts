import type { IncomingMessage } from 'node:http';
import { sendHttpError } from '../respond.js';
import type { Guard } from './guard.js';

export const ALLOWED_ORIGINS: ReadonlySet<string> = new Set(['https://claude.ai', 'https://app.cursor.com']);

/** The Origin rule: absent, or one of the two hosted assistants. */
export function isAllowedOrigin(origin: string | undefined): boolean {
  return origin === undefined || ALLOWED_ORIGINS.has(origin);
}

export function originOf(req: IncomingMessage): string | undefined {
  const origin = req.headers.origin;
  return Array.isArray(origin) ? origin[0] : origin;
}

/** Any other Origin is 403 `forbidden_origin`. */
export const origin: Guard = (req, res) => {
  if (isAllowedOrigin(originOf(req))) return false;
  sendHttpError(res, 403, 'forbidden_origin', 'This origin may not call Sluice');
  return true;
};
