import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { expectModernSuccess, SERVER_INFO_KEY } from './rpcAssertions.js';
import { mcp, type McpCallOptions, mirroredHeaders, post, type RawResponse } from './testApp.js';

/**
 * The client side of the contract's consent round trip ("input_required result", "Input response",
 * "Tool call needing approval"), and small probes the consent suites share.
 */

export const CONSENT_KEY = 'approve_statement';

/** `_meta` of a client that declares the `elicitation` capability (merge with `extraMeta`). */
export const ELICITATION_META = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };

/** The input response of a user who accepted the form and ticked "approved". */
export const ACCEPTED = { action: 'accept', content: { approved: true } };

export type RoundTrip = { requestState?: unknown; inputResponses?: unknown };

/** `tools/call` with the round-trip fields next to `name` and `arguments` (the repeated call). */
export function repeatToolCall(
  app: { url: string },
  name: string,
  args: Record<string, unknown>,
  roundTrip: RoundTrip,
  options: McpCallOptions = {},
): Promise<RawResponse> {
  return mcp(app, 'tools/call', { name, arguments: args, ...roundTrip }, options);
}

/**
 * Asserts the contract's `input_required` result for one statement, field by field and nothing more:
 * `resultType`, `inputRequests.approve_statement` (an `elicitation/create` form asking for one required
 * boolean `approved`, described by the exact statement), a string `requestState`, `serverInfo`, and no
 * cache hints. Returns the `requestState`.
 */
export function expectInputRequired(res: RawResponse, statement: string, id: unknown = 1): string {
  expect({ status: res.status, error: res.json?.error }).toEqual({ status: 200, error: undefined });
  expect(Object.keys(res.json).sort()).toEqual(['id', 'jsonrpc', 'result']);
  expect(res.json.id).toEqual(id);
  const { result } = res.json;
  expect(Object.keys(result).sort()).toEqual(['_meta', 'inputRequests', 'requestState', 'resultType']);
  expect(result.resultType).toBe('input_required');
  expect(result._meta[SERVER_INFO_KEY]).toMatchObject({ name: 'sluice', version: expect.any(String) });
  expect(typeof result.requestState).toBe('string');
  expect(result.requestState.length).toBeGreaterThan(0);
  expect(Object.keys(result.inputRequests)).toEqual([CONSENT_KEY]);
  const request = result.inputRequests[CONSENT_KEY];
  expect(request).toEqual({
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message: expect.any(String),
      requestedSchema: {
        type: 'object',
        properties: {
          approved: { type: 'boolean', title: expect.stringMatching(/approv/i), description: statement },
        },
        required: ['approved'],
      },
    },
  });
  expect(request.params.message.length).toBeGreaterThan(0);
  return result.requestState as string;
}

/** Asserts a successful tool result (never cached) and returns its structured content. */
export function expectToolSuccess(res: RawResponse, id: unknown = 1): Record<string, any> {
  const result = expectModernSuccess(res, id);
  expect(result.isError).toBe(false);
  expect(result).not.toHaveProperty('ttlMs');
  expect(result).not.toHaveProperty('cacheScope');
  expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
  return result.structuredContent;
}

/** Asserts a tool error (contract, "Tool errors"): one text item starting `<code>: `; returns the text. */
export function expectToolError(res: RawResponse, code: string, id: unknown = 1): string {
  const result = expectModernSuccess(res, id);
  expect(result.isError).toBe(true);
  expect(result).not.toHaveProperty('ttlMs');
  expect(result.content).toHaveLength(1);
  expect(result.content[0].type).toBe('text');
  expect(result.content[0].text.startsWith(`${code}: `)).toBe(true);
  return result.content[0].text as string;
}

/** The same JWS with one character in the middle of its signature part replaced. */
export function tamperSignature(state: string): string {
  const parts = state.split('.');
  expect(parts).toHaveLength(3);
  const signature = parts[2]!;
  const at = Math.floor(signature.length / 2);
  const replaced = signature[at] === 'A' ? 'B' : 'A';
  return [parts[0], parts[1], `${signature.slice(0, at)}${replaced}${signature.slice(at + 1)}`].join('.');
}

/** POSTs a `notifications/cancelled` for `requestId` under the given headers (the caller's token). */
export function sendCancelled(
  app: { url: string },
  requestId: string | number,
  headers: Record<string, string>,
): Promise<RawResponse> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId, reason: 'the test cancelled it' },
  });
  return post(app.url, body, { ...mirroredHeaders('notifications/cancelled', {}), ...headers });
}

/** Polls `probe` every 10 ms until it returns something other than `undefined`; fails after `timeoutMs`. */
export async function eventually<T>(probe: () => T | undefined, what: string, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** One scalar from a SQLite file, read on a connection of its own (not through Sluice). */
export function scalar(path: string, sql: string, ...params: unknown[]): unknown {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).pluck().get(...params);
  } finally {
    db.close();
  }
}
