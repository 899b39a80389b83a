import type { RequestTrace } from './mcp/mcpPost.js';

/**
 * One JSON line per request for `sluice serve --log-requests`: who, what method, how it ended, how long,
 * and the caller's W3C trace context unchanged. Never a token, a statement, an argument or a result.
 */
export function requestLogLine(trace: RequestTrace, now: Date = new Date()): string {
  return `${JSON.stringify({
    time: now.toISOString(),
    id: trace.id,
    method: trace.method ?? null,
    principal: trace.principalId ?? null,
    client: trace.clientName ?? null,
    status: trace.status,
    ...(trace.errorCode !== undefined ? { code: trace.errorCode } : {}),
    ms: Math.round(trace.durationMs * 10) / 10,
    ...trace.trace,
  })}\n`;
}
