import type { IncomingMessage } from 'node:http';

const ALLOWED_REQUEST_HEADERS = new Set([
  'authorization',
  'content-type',
  'accept',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'mcp-session-id',
  'last-event-id',
  'traceparent',
  'tracestate',
  'baggage',
]);
const EXPOSED_HEADERS = 'Mcp-Session-Id, WWW-Authenticate, Retry-After';

/** Headers every response to an allowed cross-origin caller carries. */
export function corsHeaders(origin: string | undefined): Record<string, string> {
  if (origin === undefined) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': EXPOSED_HEADERS,
    vary: 'Origin',
  };
}

/** The preflight answer: the methods, and the requested headers when each is one Sluice reads. */
export function preflightHeaders(req: IncomingMessage, origin: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { allow: 'POST, OPTIONS' };
  if (origin === undefined) return headers;
  const requested = (req.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const acceptable = requested.filter(
    (h) => ALLOWED_REQUEST_HEADERS.has(h) || /^mcp-param-[a-z0-9_.-]+$/.test(h),
  );
  return {
    ...headers,
    ...corsHeaders(origin),
    'access-control-allow-methods': 'POST, OPTIONS',
    'access-control-allow-headers': [
      ...ALLOWED_REQUEST_HEADERS,
      ...acceptable.filter((h) => !ALLOWED_REQUEST_HEADERS.has(h)),
    ].join(', '),
    'access-control-max-age': '600',
  };
}
