import { post, type RawResponse } from './testApp.js';

export const LEGACY = '2025-11-25';

/** `initialize` as a legacy client sends it; resolves with the response and its `Mcp-Session-Id`. */
export async function initialize(
  app: { url: string },
  headers: Record<string, string> = {},
  protocolVersion: string = LEGACY,
): Promise<{ res: RawResponse; sessionId: string }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'legacy-test', version: '1.0.0' } },
  });
  const res = await post(app.url, body, { 'content-type': 'application/json', ...headers });
  return { res, sessionId: res.headers.get('mcp-session-id') ?? '' };
}

/** A legacy request within a session. */
export function legacyCall(
  app: { url: string },
  sessionId: string | undefined,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  id: string | number = 1,
): Promise<RawResponse> {
  return post(app.url, JSON.stringify({ jsonrpc: '2.0', id, method, params }), {
    'content-type': 'application/json',
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    ...headers,
  });
}
