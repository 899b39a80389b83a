import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { RawResponse } from './testApp.js';
import { resultText } from '../../src/capabilities/resultText.js';
import { errorText, unfenced } from './dataFence.js';

/** Assertions on the JSON-RPC answers of the modern protocol: errors, successes, tool results. */

/** The version in package.json, which `serverInfo.version` reports. */
export const PACKAGE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

/**
 * Asserts a JSON-RPC error answer: the HTTP status, exactly `{jsonrpc, id, error}` at the top level,
 * `error` exactly `{code, message, data?}` with a non-empty message. Returns `error` for further checks.
 * `id` may be one value or a list of acceptable values.
 */
export function expectRpcError(
  res: RawResponse,
  status: number,
  code: number,
  id: unknown = null,
): { code: number; message: string; data?: any } {
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect({ status: res.status, code: res.json?.error?.code }).toEqual({ status, code });
  expect(Object.keys(res.json).sort()).toEqual(['error', 'id', 'jsonrpc']);
  expect(res.json.jsonrpc).toBe('2.0');
  if (Array.isArray(id)) expect(id).toContainEqual(res.json.id);
  else expect(res.json.id).toEqual(id);
  const { error } = res.json;
  for (const key of Object.keys(error)) expect(['code', 'message', 'data']).toContain(key);
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  return error;
}

/** Asserts a modern success: HTTP 200, `{jsonrpc, id, result}`, `resultType` complete and `serverInfo`. */
export function expectModernSuccess(res: RawResponse, id: unknown = 1): Record<string, any> {
  expect({ status: res.status, error: res.json?.error }).toEqual({ status: 200, error: undefined });
  expect(Object.keys(res.json).sort()).toEqual(['id', 'jsonrpc', 'result']);
  expect(res.json.jsonrpc).toBe('2.0');
  expect(res.json.id).toEqual(id);
  const { result } = res.json;
  expect(result.resultType).toBe('complete');
  const info = result._meta?.[SERVER_INFO_KEY];
  expect(info?.name).toBe('sluice');
  expect(typeof info?.version).toBe('string');
  expect(info.version).toBe(PACKAGE_VERSION);
  return result;
}

/** Asserts a successful tool result (never cached) and returns its structured content. */
export function expectToolSuccess(res: RawResponse, id: unknown = 1): Record<string, any> {
  const result = expectModernSuccess(res, id);
  expect(result.isError).toBe(false);
  expect(result).not.toHaveProperty('ttlMs');
  expect(result).not.toHaveProperty('cacheScope');
  expect(result.content).toHaveLength(1);
  expect(result.content[0].type).toBe('text');
  expect(unfenced(result.content[0].text)).toBe(resultText(result.structuredContent));
  return result.structuredContent;
}

/** Asserts a tool error (contract, "Tool errors"): one text item starting `<code>: `; returns the text, a database's message out of its fence. */
export function expectToolError(res: RawResponse, code: string, id: unknown = 1): string {
  const result = expectModernSuccess(res, id);
  expect(result.isError).toBe(true);
  expect(result).not.toHaveProperty('ttlMs');
  expect(result.content).toHaveLength(1);
  expect(result.content[0].type).toBe('text');
  expect(result.content[0].text.startsWith(`${code}: `)).toBe(true);
  return errorText(result.content[0].text as string);
}
