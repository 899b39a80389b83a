import type { ServerResponse } from 'node:http';
import { toJsonText } from '../protocol/rawJson.js';

/** No browser may read an answer as another type than it says (a JSON refusal as a script or a page). */
export const NOSNIFF = { 'x-content-type-options': 'nosniff' } as const;

/**
 * Headers every answer of a server carries, refusals and streams included: set once as the request
 * arrives, before any branch can answer, so no branch can leave them out.
 */
export function setOnEveryAnswer(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = toJsonText(body);
  res.writeHead(status, jsonHeaders(headers, Buffer.byteLength(text)));
  res.end(text);
}

/** The head of a JSON answer of `length` bytes. */
export function jsonHeaders(headers: Record<string, string>, length: number): Record<string, string | number> {
  return { ...headers, 'content-type': 'application/json', 'content-length': length, 'cache-control': 'no-store' };
}

/** Errors outside JSON-RPC (Host, Origin, method, path): a small JSON object naming the refusal. */
export function sendHttpError(
  res: ServerResponse,
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error, error_description: description }, headers);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, 'content-length': 0 });
  res.end();
}
