import type { PairingLink } from './deepLink.js';

/** Launcher apps read the callback from a single `context` query parameter holding JSON. */
export const LAUNCHER_SCHEMES: ReadonlySet<string> = new Set(['raycast']);

export function approvalCallback(link: PairingLink, code: string): URL {
  return callback(link, { code });
}

export function denialCallback(link: PairingLink): URL {
  return callback(link, { error: 'denied', error_description: 'user_denied' });
}

function callback(link: PairingLink, outcome: Record<string, string>): URL {
  const fields = link.state === undefined ? outcome : { ...outcome, state: link.state };
  return withQuery(link.redirect, usesContext(link) ? { context: JSON.stringify(fields) } : fields);
}

function usesContext(link: PairingLink): boolean {
  if (link.responseMode !== undefined) return link.responseMode === 'context';
  return LAUNCHER_SCHEMES.has(link.redirect.protocol.slice(0, -1));
}

/**
 * Appends the fields to the redirect's query. The redirect's other parameters are kept byte for byte
 * (re-serialising them through URLSearchParams would rewrite their escapes); a parameter named like one
 * of the fields is dropped, so the receiver finds exactly one value. Values are escaped with
 * encodeURIComponent, which both form decoders and decodeURIComponent read back unchanged.
 */
function withQuery(redirect: URL, fields: Record<string, string>): URL {
  const url = new URL(redirect.href);
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '' && !Object.hasOwn(fields, parameterName(pair)));
  const added = Object.entries(fields).map(([name, value]) => `${name}=${encodeURIComponent(value)}`);
  url.search = [...kept, ...added].join('&');
  return url;
}

function parameterName(pair: string): string {
  return new URLSearchParams(pair).keys().next().value ?? '';
}
