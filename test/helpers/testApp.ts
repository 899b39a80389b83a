/**
 * A real Sluice in the test process (its tokens and its demo database included), and the requests a
 * modern client sends it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type App, type AppOptions, startApp } from '../../src/app/app.js';
import type { PermissionLevel } from '../../src/auth/levels.js';
import type { TokenStore } from '../../src/auth/tokenStore.js';
import { SECRETS_IN_FILES } from '../../src/platform/secretHome.js';

export const MODERN = '2026-07-28';

export type TestApp = App & { dispose(): Promise<void> };

/**
 * A real Sluice on an ephemeral loopback port, with its own support directory (demo database included).
 * Authentication is off unless the test turns it on: most suites are about other layers.
 */
export async function startTestApp(options: Partial<AppOptions> = {}): Promise<TestApp> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'sluice-test-'));
  // Secrets in the files without asking the OS store (test/e2e/secretService.test.ts asks a real one);
  // the support directory as the SSH home, so that no test reads the person's ~/.ssh.
  const app = await startApp({ port: 0, consolePort: 0, auth: false, secrets: SECRETS_IN_FILES, sshHome: dataDir, ...options, dataDir });
  return Object.assign(Object.create(app) as App, {
    async dispose() {
      await app.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

export type Minted = { id: string; name: string; plaintext: string; headers: Record<string, string> };

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A token minted in the app's store, as the console would (every connection, never expiring). */
export function mintToken(
  app: { tokens: TokenStore },
  name: string,
  level: PermissionLevel = 'readWrite',
): Minted {
  const { record, plaintext } = app.tokens.mint({ name, level, connections: 'all', expiresInDays: null, now: Date.now() });
  return { id: record.id, name: record.name, plaintext, headers: bearer(plaintext) };
}

/** One scalar from a SQLite file (such as an app's demo database), read on a connection of its own (not through Sluice). */
export function scalar(path: string, sql: string, ...params: unknown[]): unknown {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).pluck().get(...params);
  } finally {
    db.close();
  }
}

export type McpCallOptions = {
  id?: string | number;
  /** Extra or replacement headers; a value of `null` removes a default header. */
  headers?: Record<string, string | null>;
  /** Replaces the whole `_meta`; by default the modern version and `{}` capabilities. */
  meta?: Record<string, unknown>;
  /** Merged into the default `_meta`. */
  extraMeta?: Record<string, unknown>;
};

export function modernMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  };
}

/** The headers the contract requires for a modern request, mirrored from the body. */
export function mirroredHeaders(method: string, params: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
  };
  if (method === 'tools/call' || method === 'prompts/get') headers['mcp-name'] = String(params.name);
  if (method === 'resources/read') headers['mcp-name'] = String(params.uri);
  return headers;
}

export type RawResponse = { status: number; headers: Headers; text: string; json: any };

/** `text` parsed as JSON, or `undefined` when it is not JSON. */
export function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export async function post(url: string, body: string, headers: Record<string, string>): Promise<RawResponse> {
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: parseJson(text) };
}

/** Sends one modern JSON-RPC request with correct headers, unless `options` says otherwise. */
export async function mcp(
  app: { url: string },
  method: string,
  params: Record<string, unknown> = {},
  options: McpCallOptions = {},
): Promise<RawResponse> {
  const fullParams = { ...params, _meta: options.meta ?? modernMeta(options.extraMeta) };
  const headers: Record<string, string> = mirroredHeaders(method, params);
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === null) delete headers[name.toLowerCase()];
    else headers[name.toLowerCase()] = value;
  }
  const body = JSON.stringify({ jsonrpc: '2.0', id: options.id ?? 1, method, params: fullParams });
  return post(app.url, body, headers);
}

/** Calls a tool and returns its result object (asserting nothing). */
export async function callTool(
  app: { url: string },
  name: string,
  args: Record<string, unknown>,
  options: McpCallOptions = {},
) {
  return mcp(app, 'tools/call', { name, arguments: args }, options);
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

/** Parses a `text/event-stream` body into the JSON of each `data:` frame, and reports any frame with a name. */
export function sseFrames(text: string): { data: any[]; named: number } {
  const frames = text.split('\n\n').filter((f) => f.trim().length > 0);
  return {
    data: frames.map((f) =>
      JSON.parse(
        f
          .split('\n')
          .find((l) => l.startsWith('data: '))
          ?.slice(6) ?? 'null',
      ),
    ),
    named: frames.filter((f) => f.split('\n').some((l) => l.startsWith('event:'))).length,
  };
}

/** Reads a streamed response until `marker` appears; fails if the stream ends first. */
export async function readUntil(reader: ReadableStreamDefaultReader<string>, marker: string): Promise<string> {
  let text = '';
  while (!text.includes(marker)) {
    const chunk = await reader.read();
    if (chunk.done) throw new Error(`the stream ended before ${marker}: ${text}`);
    text += chunk.value;
  }
  return text;
}
