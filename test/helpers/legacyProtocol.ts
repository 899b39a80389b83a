import { expect } from 'vitest';
import { SERVER_INFO_KEY } from './rpcAssertions.js';
import { post, type RawResponse } from './testApp.js';

/**
 * The legacy (2025-era) protocol as its clients speak it: `initialize` opening an `Mcp-Session-Id`
 * session, requests within the session, and the assertions on a legacy answer.
 */

export const LEGACY = '2025-11-25';

/** The two legacy revisions the contract answers ("Versioning"), in the order `data.supported` lists them. */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18'];

/** A v4 UUID as `randomUUID()` makes it: the shape of an `Mcp-Session-Id`. */
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export type InitializeOptions = { protocolVersion?: string; clientName?: string; capabilities?: Record<string, unknown> };

/** A legacy request within a session (none when `sessionId` is empty). */
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

/** `initialize` with the given params as they are (a missing or odd `protocolVersion` included). */
export function initializeRaw(
  app: { url: string },
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
  id: string | number = 'init',
): Promise<RawResponse> {
  return legacyCall(app, undefined, 'initialize', params, headers, id);
}

/** `initialize` as a legacy client sends it, with a client name and capabilities of its choice. */
export function initializeAs(
  app: { url: string },
  headers: Record<string, string>,
  options: InitializeOptions = {},
): Promise<RawResponse> {
  return initializeRaw(
    app,
    {
      protocolVersion: options.protocolVersion ?? LEGACY,
      capabilities: options.capabilities ?? {},
      clientInfo: { name: options.clientName ?? 'legacy-test', version: '1.0.0' },
    },
    headers,
  );
}

/** `initialize` as a legacy client sends it; resolves with the response and its `Mcp-Session-Id`. */
export async function initialize(
  app: { url: string },
  headers: Record<string, string> = {},
  protocolVersion: string = LEGACY,
): Promise<{ res: RawResponse; sessionId: string }> {
  const res = await initializeAs(app, headers, { protocolVersion });
  return { res, sessionId: res.headers.get('mcp-session-id') ?? '' };
}

/** A successful `initialize`: 200 JSON with a UUID `Mcp-Session-Id`; returns that id. */
export function expectSessionOpened(res: RawResponse): string {
  expect({ status: res.status, error: res.json?.error }).toEqual({ status: 200, error: undefined });
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  const sessionId = res.headers.get('mcp-session-id') ?? '';
  expect(sessionId).toMatch(UUID_V4);
  return sessionId;
}

/** Opens a session for `headers`' token and returns its id. */
export async function openSession(
  app: { url: string },
  headers: Record<string, string>,
  options: InitializeOptions = {},
): Promise<string> {
  return expectSessionOpened(await initializeAs(app, headers, options));
}

/** Asserts the envelope of a legacy result: none of `resultType`, `ttlMs`, `cacheScope`, `serverInfo`. */
export function expectLegacyResult(result: any): Record<string, any> {
  expect(result !== null && typeof result === 'object' && !Array.isArray(result)).toBe(true);
  expect(result).not.toHaveProperty('resultType');
  expect(result).not.toHaveProperty('ttlMs');
  expect(result).not.toHaveProperty('cacheScope');
  if (result._meta !== undefined) {
    expect(result._meta).not.toHaveProperty([SERVER_INFO_KEY]);
    // An emptied `_meta` is dropped rather than sent as `{}`.
    expect(Object.keys(result._meta).length).toBeGreaterThan(0);
  }
  return result;
}

/** A legacy success: HTTP 200 JSON, exactly `{jsonrpc, id, result}`, and a legacy result envelope. */
export function expectLegacySuccess(res: RawResponse, id: unknown = 1): Record<string, any> {
  expect({ status: res.status, error: res.json?.error }).toEqual({ status: 200, error: undefined });
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect(Object.keys(res.json).sort()).toEqual(['id', 'jsonrpc', 'result']);
  expect(res.json.jsonrpc).toBe('2.0');
  expect(res.json.id).toEqual(id);
  return expectLegacyResult(res.json.result);
}
