import { expect } from 'vitest';
import { SERVER_INFO_KEY } from './rpcAssertions.js';
import { mcp, type McpCallOptions, type RawResponse } from './testApp.js';

/**
 * The client side of the contract's consent round trip ("input_required result", "Input response",
 * "Tool call needing approval").
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

/** The same JWS with one character in the middle of its signature part replaced. */
export function tamperSignature(state: string): string {
  const parts = state.split('.');
  expect(parts).toHaveLength(3);
  const signature = parts[2]!;
  const at = Math.floor(signature.length / 2);
  const replaced = signature[at] === 'A' ? 'B' : 'A';
  return [parts[0], parts[1], `${signature.slice(0, at)}${replaced}${signature.slice(at + 1)}`].join('.');
}
