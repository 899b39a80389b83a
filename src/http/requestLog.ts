import { jsonWithVisibleEscapes } from '../core/shared/visibleText.js';
import type { RequestTrace } from './mcp/mcpPost.js';

/**
 * One JSON line per request for `sluice serve --log-requests`: who, what method, how it ended, how long,
 * and the caller's W3C trace context unchanged. Never a token, a statement, an argument or a result.
 */
export function requestLogLine(trace: RequestTrace, now: Date = new Date()): string {
  const line = JSON.stringify({
    time: now.toISOString(),
    id: trace.id,
    method: trace.method ?? null,
    principal: trace.principalId ?? null,
    client: trace.clientName ?? null,
    status: trace.status,
    ...(trace.errorCode !== undefined ? { code: trace.errorCode } : {}),
    ms: Math.round(trace.durationMs * 10) / 10,
    ...trace.trace,
  });
  // The client's name and trace context are its own text: nothing in them may move the terminal's.
  return `${jsonWithVisibleEscapes(line)}\n`;
}
