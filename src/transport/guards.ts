import type { IncomingMessage } from 'node:http';

export const ALLOWED_ORIGINS: ReadonlySet<string> = new Set(['https://claude.ai', 'https://app.cursor.com']);
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The Host rule: `localhost`, `127.0.0.1` or `::1`, and when a port is named, the bound one. */
export function isAllowedHost(host: string | undefined, boundPort: number): boolean {
  if (!host) return false;
  const match = /^(\[::1\]|[^:]+)(?::(\d{1,5}))?$/.exec(host.toLowerCase());
  if (!match) return false;
  const [, name, port] = match;
  return LOOPBACK_HOSTS.has(name as string) && (port === undefined || Number(port) === boundPort);
}

/** The Origin rule: absent, or one of the two hosted assistants. */
export function isAllowedOrigin(origin: string | undefined): boolean {
  return origin === undefined || ALLOWED_ORIGINS.has(origin);
}

export function originOf(req: IncomingMessage): string | undefined {
  const origin = req.headers.origin;
  return Array.isArray(origin) ? origin[0] : origin;
}
