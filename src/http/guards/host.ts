import { sendHttpError } from '../respond.js';
import type { Guard } from './guard.js';
import { LOOPBACK_HOSTS } from '../../protocol/loopback.js';

/** The Host rule: `localhost`, `127.0.0.1` or `::1`, and when a port is named, the bound one. */
export function isAllowedHost(host: string | undefined, boundPort: number): boolean {
  if (!host) return false;
  const match = /^(\[::1\]|[^:]+)(?::(\d{1,5}))?$/.exec(host.toLowerCase());
  if (!match) return false;
  const [, name, port] = match;
  return LOOPBACK_HOSTS.has(name as string) && (port === undefined || Number(port) === boundPort);
}

/** A Host that is not this server on the loopback interface is 403 `forbidden_host` (DNS rebinding). */
export const host: Guard = (req, res, { boundPort }) => {
  if (isAllowedHost(req.headers.host, boundPort)) return false;
  sendHttpError(res, 403, 'forbidden_host', 'The Host header must name localhost, 127.0.0.1 or ::1 and the bound port');
  return true;
};
