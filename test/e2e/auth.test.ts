import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AppClock } from '../../src/core/clock.js';
import type { PermissionLevel } from '../../src/auth/levels.js';
import type { CapabilityModules, Tool } from '../../src/capabilities/types.js';
import { openConsole } from '../helpers/consoleClient.js';
import { expectModernSuccess, expectRpcError } from '../helpers/rpcAssertions.js';
import {
  callTool,
  mcp,
  mirroredHeaders,
  modernMeta,
  type RawResponse,
  startTestApp,
  type TestApp,
} from '../helpers/testApp.js';
import { ALL_TOOLS, READ_ONLY_TOOLS, READ_TOOLS } from '../helpers/catalogue.js';
import { UNVERIFIED_BEARERS } from '../../src/core/contract.js';

/**
 * Contract, "Authentication", "Errors" and "Limits"; decisions.md, "Scopes and permission levels",
 * "Tokens", "Rate limits and lockouts", "Catalogue" and "Activity log".
 */

type GatedTool = {
  /** A capability module holding only the gated tool; pass it in `extraCapabilities`. */
  module: CapabilityModules;
  name: string;
  /** Calls currently held at the gate. */
  waiting(): number;
  /** Resolves once at least `count` calls are held at the gate (polls every 10 ms). */
  untilWaiting(count: number): Promise<void>;
  /** Lets every held call finish with `{ released: true }`. */
  releaseAll(): void;
};

/**
 * A test-only read tool whose every call waits until the test releases it (or the request is aborted):
 * a way to keep requests in flight for as long as a test needs.
 */
function gatedTool(name = 'wait_for_gate'): GatedTool {
  const held: (() => void)[] = [];
  const tool: Tool = {
    name,
    title: 'Wait for the gate',
    description: 'Test fixture: returns once the test opens the gate.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    outputSchema: { type: 'object', properties: { released: { type: 'boolean' } }, required: ['released'] },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scopes: [],
    run: (_args, ctx) =>
      new Promise((resolve, reject) => {
        const release = () => {
          ctx.signal.removeEventListener('abort', abort);
          resolve({ released: true });
        };
        const abort = () => {
          const at = held.indexOf(release);
          if (at >= 0) held.splice(at, 1);
          reject(ctx.signal.reason);
        };
        ctx.signal.addEventListener('abort', abort, { once: true });
        held.push(release);
      }),
  };
  return {
    module: { tools: [tool as Tool<never>], resources: [], prompts: [] },
    name,
    waiting: () => held.length,
    async untilWaiting(count) {
      while (held.length < count) await new Promise((resolve) => setTimeout(resolve, 10));
    },
    releaseAll() {
      for (const release of held.splice(0)) release();
    },
  };
}

const DAY_MS = 86_400_000;
const CHALLENGE = 'Bearer realm="sluice"';
const INVALID_TOKEN = 'Bearer realm="sluice", error="invalid_token"';
const EXPIRED_TOKEN = 'Bearer realm="sluice", error="invalid_token", error_description="token expired"';

type Minted = { id: string; name: string; plaintext: string; headers: Record<string, string> };

type MintOptions = {
  connections?: 'all' | string[];
  expiresInDays?: number | null;
  now?: number;
  name?: string;
};

function mint(app: TestApp, level: PermissionLevel, options: MintOptions = {}): Minted {
  const { record, plaintext } = app.tokens.mint({
    name: options.name ?? `${level} test token`,
    level,
    connections: options.connections ?? 'all',
    expiresInDays: options.expiresInDays ?? null,
    now: options.now ?? Date.now(),
  });
  return { id: record.id, name: record.name, plaintext, headers: bearer(plaintext) };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A token of the right shape (`sl_` + 43 base64url characters) that was never minted. */
const unknownToken = () => `sl_${randomBytes(32).toString('base64url')}`;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const toolNames = (result: Record<string, any>) => (result.tools as { name: string }[]).map((t) => t.name);

/** Asserts a successful tool result and returns its structured content. */
function toolOutput(res: RawResponse, id: unknown = 1): Record<string, any> {
  const result = expectModernSuccess(res, id);
  expect(result.isError).toBe(false);
  return result.structuredContent;
}

/** `Retry-After` as whole seconds, asserting it is a positive integer. */
function retryAfter(res: RawResponse): number {
  const value = res.headers.get('retry-after');
  expect(value).toMatch(/^\d+$/);
  const seconds = Number(value);
  expect(seconds).toBeGreaterThanOrEqual(1);
  return seconds;
}

const SECOND_LOOPBACK = '127.0.0.2';

/** Whether this machine has a second loopback address (Linux does; macOS only when configured). */
function secondLoopbackAvailable(): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(0, SECOND_LOOPBACK, () => server.close(() => resolve(true)));
  });
}

/** One modern request sent from another loopback source address (Linux routes all of 127/8 to lo). */
function mcpFrom(
  localAddress: string,
  app: TestApp,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; json: any }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: modernMeta() } });
  return new Promise((resolve, reject) => {
    const req = request(
      app.url,
      {
        method: 'POST',
        localAddress,
        agent: false,
        headers: {
          ...mirroredHeaders(method, params),
          ...headers,
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            json: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('bearer authentication, scopes and the activity log (demo connection)', () => {
  let app: TestApp;
  let readOnly: Minted;
  let readWrite: Minted;
  let fullAccess: Minted;
  /** Every plaintext sent in this suite, valid or not: none may reach the activity log. */
  const sentTokens: string[] = [];

  beforeAll(async () => {
    app = await startTestApp({ auth: true });
    readOnly = mint(app, 'readOnly');
    readWrite = mint(app, 'readWrite');
    fullAccess = mint(app, 'fullAccess');
    sentTokens.push(readOnly.plaintext, readWrite.plaintext, fullAccess.plaintext);
  });
  afterAll(() => app.dispose());


  describe('refusals', () => {
    it('a refused request is read only up to 64 KB: a 1 MB body without a token → 401 -33009, id null, connection closed', async () => {
      const res = await mcp(app, 'tools/list', { padding: 'x'.repeat(1024 * 1024) }, { id: 'big' });
      expectRpcError(res, 401, -33009, null);
      expect(res.headers.get('connection')).toBe('close');
      const small = await mcp(app, 'tools/list', { padding: 'x'.repeat(60 * 1024) }, { id: 'small' });
      expectRpcError(small, 401, -33009, 'small');
    });

    it('no Authorization header → 401 -33009 with exactly `Bearer realm="sluice"`', async () => {
      const res = await mcp(app, 'tools/list', {}, { id: 'none' });
      expectRpcError(res, 401, -33009, 'none');
      expect(res.headers.get('www-authenticate')).toBe(CHALLENGE);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    });

    it('an unknown token → 401 -33009 with error="invalid_token"', async () => {
      const token = unknownToken();
      sentTokens.push(token);
      const res = await mcp(app, 'tools/list', {}, { headers: bearer(token) });
      expectRpcError(res, 401, -33009, 1);
      expect(res.headers.get('www-authenticate')).toBe(INVALID_TOKEN);
    });

    it('a token-like string of the wrong shape → 401 -33009 with error="invalid_token"', async () => {
      const token = `sl_${readOnly.plaintext.slice(3, 20)}`;
      const res = await mcp(app, 'tools/list', {}, { headers: bearer(token) });
      expectRpcError(res, 401, -33009, 1);
      expect(res.headers.get('www-authenticate')).toBe(INVALID_TOKEN);
    });

    it.each([
      ['Basic x', 'Basic x'],
      ['`Bearer` alone', 'Bearer'],
    ])('a malformed Authorization header (%s) → 401 -33009 with error="invalid_token"', async (_label, value) => {
      const res = await mcp(app, 'tools/list', {}, { headers: { authorization: value } });
      expectRpcError(res, 401, -33009, 1);
      expect(res.headers.get('www-authenticate')).toBe(INVALID_TOKEN);
    });

    it('a valid token in the Basic scheme is still refused (only Bearer is accepted)', async () => {
      const res = await mcp(app, 'tools/list', {}, { headers: { authorization: `Basic ${readOnly.plaintext}` } });
      expectRpcError(res, 401, -33009, 1);
      expect(res.headers.get('www-authenticate')).toBe(INVALID_TOKEN);
    });

    it('revocation takes effect on the very next request → 401 -33009 with error="invalid_token"', async () => {
      const token = mint(app, 'readWrite', { name: 'to be revoked' });
      sentTokens.push(token.plaintext);
      expectModernSuccess(await mcp(app, 'tools/list', {}, { headers: token.headers }));
      const revoked = app.tokens.revoke(token.id, Date.now());
      expect(revoked?.revokedAt).toBeDefined();
      const res = await mcp(app, 'tools/list', {}, { id: 2, headers: token.headers });
      expectRpcError(res, 401, -33009, 2);
      expect(res.headers.get('www-authenticate')).toBe(INVALID_TOKEN);
      // Not merely the method: every method refuses it, discover included.
      const discover = await mcp(app, 'server/discover', {}, { id: 3, headers: token.headers });
      expectRpcError(discover, 401, -33009, 3);
    });

    it('an expired token → 401 -33008 with error="invalid_token", error_description="token expired"', async () => {
      const token = mint(app, 'fullAccess', { name: 'expired', expiresInDays: 1, now: Date.now() - 2 * DAY_MS });
      sentTokens.push(token.plaintext);
      const res = await mcp(app, 'tools/list', {}, { headers: token.headers });
      expectRpcError(res, 401, -33008, 1);
      expect(res.headers.get('www-authenticate')).toBe(EXPIRED_TOKEN);
    });

    it('a token that expires in a day works today', async () => {
      const token = mint(app, 'readOnly', { name: 'fresh', expiresInDays: 1 });
      sentTokens.push(token.plaintext);
      expectModernSuccess(await mcp(app, 'tools/list', {}, { headers: token.headers }));
    });

    it('server/discover needs a valid token (401 without one) but no scope', async () => {
      expectRpcError(await mcp(app, 'server/discover'), 401, -33009, 1);
      for (const token of [readOnly, readWrite, fullAccess]) {
        const result = expectModernSuccess(await mcp(app, 'server/discover', {}, { headers: token.headers }));
        expect(result.supportedVersions).toContain('2026-07-28');
      }
    });
  });

  describe('scopes', () => {
    it('readOnly: tools/list has the read tools, not the write tools, and lacks confirm_destructive_operation', async () => {
      const names = toolNames(expectModernSuccess(await mcp(app, 'tools/list', {}, { headers: readOnly.headers })));
      expect([...names].sort()).toEqual([...READ_ONLY_TOOLS].sort());
      expect(names).not.toContain('confirm_destructive_operation');
    });

    it('readWrite: tools/list also lacks confirm_destructive_operation (it needs admin)', async () => {
      const names = toolNames(expectModernSuccess(await mcp(app, 'tools/list', {}, { headers: readWrite.headers })));
      expect([...names].sort()).toEqual([...READ_TOOLS].sort());
    });

    it('fullAccess: tools/list has every tool', async () => {
      const names = toolNames(expectModernSuccess(await mcp(app, 'tools/list', {}, { headers: fullAccess.headers })));
      expect(names).toHaveLength(ALL_TOOLS.length);
      expect([...names].sort()).toEqual([...ALL_TOOLS].sort());
    });

    it('readOnly: execute_query reads', async () => {
      const out = toolOutput(
        await callTool(app, 'execute_query', { connection_id: 'demo', sql: 'SELECT 1 AS one' }, { headers: readOnly.headers }),
      );
      expect(out).toMatchObject({ rows: [[1]], statement_kind: 'read' });
    });

    it('readOnly: execute_query with a write → 403 -33007, requiredScopes [tools:read, tools:write], insufficient_scope', async () => {
      const res = await callTool(
        app,
        'execute_query',
        { connection_id: 'demo', sql: 'UPDATE books SET title = title WHERE id = 1' },
        { id: 7, headers: readOnly.headers },
      );
      const error = expectRpcError(res, 403, -33007, 7);
      expect(error.data?.requiredScopes).toEqual(['tools:read', 'tools:write']);
      const challenge = res.headers.get('www-authenticate') ?? '';
      expect(challenge.startsWith(CHALLENGE)).toBe(true);
      expect(challenge).toContain('error="insufficient_scope"');
    });

    it('readWrite: a write on a readWrite connection passes the scope check and asks for consent', async () => {
      const res = await callTool(
        app,
        'execute_query',
        { connection_id: 'demo', sql: 'UPDATE books SET title = title WHERE id = 1' },
        { headers: readWrite.headers, extraMeta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } },
      );
      expect(res.json.result.resultType).toBe('input_required');
    });

    it('readWrite: confirm_destructive_operation → 403 -33007 with admin in requiredScopes', async () => {
      const res = await callTool(
        app,
        'confirm_destructive_operation',
        { connection_id: 'demo', sql: 'DROP TABLE books' },
        { headers: readWrite.headers },
      );
      const error = expectRpcError(res, 403, -33007, 1);
      expect(error.data?.requiredScopes).toContain('admin');
      expect(res.headers.get('www-authenticate') ?? '').toContain('error="insufficient_scope"');
    });

    it('readOnly: confirm_destructive_operation → 403 -33007 with admin in requiredScopes', async () => {
      const res = await callTool(
        app,
        'confirm_destructive_operation',
        { connection_id: 'demo', sql: 'DROP TABLE books' },
        { headers: readOnly.headers },
      );
      const error = expectRpcError(res, 403, -33007, 1);
      expect(error.data?.requiredScopes).toEqual(expect.arrayContaining(['admin', 'tools:write']));
    });

    it('fullAccess: confirm_destructive_operation with DROP TABLE books asks for consent first, and books survives', async () => {
      const res = await callTool(
        app,
        'confirm_destructive_operation',
        { connection_id: 'demo', sql: 'DROP TABLE books' },
        { headers: fullAccess.headers, extraMeta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } },
      );
      expect(res.json.result.resultType).toBe('input_required');
      const out = toolOutput(
        await callTool(app, 'count_rows', { connection_id: 'demo', table: 'books', exact: true }, { headers: fullAccess.headers }),
      );
      expect(out.count).toBeGreaterThan(0);
    });
  });

  describe('activity log', () => {
    it('refused bearer tokens are `auth`/`denied` rows, and no plaintext token appears in any row', async () => {
      const unknown = unknownToken();
      sentTokens.push(unknown);
      expectRpcError(await mcp(app, 'tools/list', {}, { headers: bearer(unknown) }), 401, -33009, 1);
      const revoked = mint(app, 'readOnly', { name: 'revoked for the log' });
      sentTokens.push(revoked.plaintext);
      app.tokens.revoke(revoked.id, Date.now());
      expectRpcError(await mcp(app, 'tools/list', {}, { headers: revoked.headers }), 401, -33009, 1);
      const expired = mint(app, 'readOnly', { name: 'expired for the log', expiresInDays: 1, now: Date.now() - 2 * DAY_MS });
      sentTokens.push(expired.plaintext);
      expectRpcError(await mcp(app, 'tools/list', {}, { headers: expired.headers }), 401, -33008, 1);

      const denied = app.activity.list({ category: 'auth', outcome: 'denied', limit: 1000 });
      const reasons = denied.map((row) => JSON.parse(row.detail ?? '{}').reason);
      expect(reasons).toEqual(expect.arrayContaining(['unknown', 'revoked', 'expired']));
      expect(denied.find((row) => row.token_id === revoked.id)).toMatchObject({
        action: 'bearer',
        token_name: 'revoked for the log',
      });
      expect(denied.find((row) => row.token_id === expired.id)).toMatchObject({ token_name: 'expired for the log' });

      const everything = JSON.stringify(app.activity.list({ limit: 10_000 }));
      for (const token of sentTokens) {
        expect(everything).not.toContain(token);
        // Nor the part after `sl_` (a row could have stripped the prefix).
        expect(everything).not.toContain(token.slice(3));
      }
    });

    it('a tools/call is a `tool` row: token id and name, connection, sha256 of the SQL (never its text), traceparent', async () => {
      const sql = `SELECT title FROM books WHERE id = 2 /* ${randomBytes(6).toString('hex')} */`;
      const traceparent = `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
      const res = await callTool(
        app,
        'execute_query',
        { connection_id: 'demo', sql },
        { headers: readWrite.headers, extraMeta: { traceparent } },
      );
      expect(toolOutput(res).row_count).toBe(1);

      const rows = app.activity.list({ category: 'tool', limit: 1000 }).filter((r) => r.traceparent === traceparent);
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row).toMatchObject({
        category: 'tool',
        action: 'execute_query',
        outcome: 'success',
        token_id: readWrite.id,
        token_name: readWrite.name,
        connection_id: 'demo',
        statement_sha256: sha256(sql),
        traceparent,
        rows: 1,
      });
      const everything = JSON.stringify(app.activity.list({ limit: 10_000 }));
      expect(everything).not.toContain(sql);
      expect(everything).not.toContain(sql.slice(sql.indexOf('/*')));
    });

    it('a refused write is a `tool`/`denied` row with the statement digest, not the text', async () => {
      const sql = `UPDATE books SET title = 'x${randomBytes(6).toString('hex')}' WHERE id = 1`;
      const traceparent = `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
      const res = await callTool(
        app,
        'execute_query',
        { connection_id: 'demo', sql },
        { headers: readOnly.headers, extraMeta: { traceparent } },
      );
      expectRpcError(res, 403, -33007, 1);
      const rows = app.activity.list({ category: 'tool', limit: 1000 }).filter((r) => r.traceparent === traceparent);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        outcome: 'denied',
        token_id: readOnly.id,
        connection_id: 'demo',
        statement_sha256: sha256(sql),
      });
      expect(JSON.stringify(app.activity.list({ limit: 10_000 }))).not.toContain(sql);
    });
  });
});

describe('connection gates: allowlist, external access and AI policy', () => {
  let dir: string;
  let app: TestApp;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-gates-'));
    const connections = [
      { id: 'a', externalAccess: 'readWrite', aiPolicy: 'askEachTime' },
      { id: 'b', externalAccess: 'readOnly', aiPolicy: 'always' },
      { id: 'c', externalAccess: 'blocked', aiPolicy: 'always' },
      { id: 'd', externalAccess: 'readWrite', aiPolicy: 'never' },
    ].map((c) => {
      const path = join(dir, `${c.id}.sqlite`);
      const db = new Database(path);
      db.exec(`CREATE TABLE items_${c.id} (id INTEGER PRIMARY KEY, label TEXT); INSERT INTO items_${c.id} (label) VALUES ('one');`);
      db.close();
      return { ...c, name: `Connection ${c.id.toUpperCase()}`, engine: 'sqlite', path };
    });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ connections }));
    app = await startTestApp({ dataDir: dir, auth: true });
  });
  afterAll(async () => {
    await app?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const listedIds = async (token: Minted) =>
    (toolOutput(await callTool(app, 'list_connections', {}, { headers: token.headers })).connections as { id: string }[]).map(
      (c) => c.id,
    );

  const resourceUris = async (token: Minted) =>
    (expectModernSuccess(await mcp(app, 'resources/list', {}, { headers: token.headers })).resources as { uri: string }[]).map(
      (r) => r.uri,
    );

  const connectionsInUris = (uris: string[]) =>
    new Set(uris.map((uri) => /^sluice:\/\/connections\/([^/?]+)/.exec(uri)?.[1]).filter((id) => id !== undefined));

  it("a token allowed only 'a' sees only a in list_connections and resources/list", async () => {
    const token = mint(app, 'readWrite', { connections: ['a'] });
    expect(await listedIds(token)).toEqual(['a']);
    const uris = await resourceUris(token);
    expect(uris).toContain('sluice://connections');
    expect(connectionsInUris(uris)).toEqual(new Set(['a']));
  });

  it("a token allowed only 'a' calling list_tables on b → 403 -33007", async () => {
    const token = mint(app, 'fullAccess', { connections: ['a'] });
    toolOutput(await callTool(app, 'list_tables', { connection_id: 'a' }, { headers: token.headers }));
    expectRpcError(await callTool(app, 'list_tables', { connection_id: 'b' }, { id: 'b', headers: token.headers }), 403, -33007, 'b');
  });

  it("a token allowed only 'a' reading b's resources → 403 -33007", async () => {
    const token = mint(app, 'readOnly', { connections: ['a'] });
    const res = await mcp(app, 'resources/read', { uri: 'sluice://connections/b/schema' }, { headers: token.headers });
    expectRpcError(res, 403, -33007, 1);
  });

  it('c (blocked) and d (AI policy never) are hidden even from a fullAccess token allowed every connection', async () => {
    const token = mint(app, 'fullAccess', { connections: 'all' });
    expect(await listedIds(token)).toEqual(['a', 'b']);
    expect(connectionsInUris(await resourceUris(token))).toEqual(new Set(['a', 'b']));
  });

  it("c and d are hidden from a token whose allowlist names them", async () => {
    const token = mint(app, 'fullAccess', { connections: ['a', 'c', 'd'] });
    expect(await listedIds(token)).toEqual(['a']);
    expect(connectionsInUris(await resourceUris(token))).toEqual(new Set(['a']));
  });

  it.each(['c', 'd'])('calls naming %s are refused with 403 -33007, whatever the token', async (id) => {
    for (const token of [
      mint(app, 'fullAccess', { connections: 'all' }),
      mint(app, 'fullAccess', { connections: [id] }),
      mint(app, 'readOnly', { connections: 'all' }),
    ]) {
      expectRpcError(await callTool(app, 'list_tables', { connection_id: id }, { headers: token.headers }), 403, -33007, 1);
      expectRpcError(
        await callTool(app, 'execute_query', { connection_id: id, sql: 'SELECT 1' }, { headers: token.headers }),
        403,
        -33007,
        1,
      );
      expectRpcError(
        await mcp(app, 'resources/read', { uri: `sluice://connections/${id}/schema` }, { headers: token.headers }),
        403,
        -33007,
        1,
      );
    }
  });

  it("prompts and completions follow the same gates: only 'a' is offered, b is refused with 403 -33007", async () => {
    const token = mint(app, 'readOnly', { connections: ['a', 'c', 'd'] });
    const completion = expectModernSuccess(
      await mcp(
        app,
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'explain_schema' }, argument: { name: 'connection_id', value: '' } },
        { headers: token.headers },
      ),
    );
    expect(completion.completion.values).toEqual(['a']);
    expectModernSuccess(
      await mcp(app, 'prompts/get', { name: 'explain_schema', arguments: { connection_id: 'a' } }, { headers: token.headers }),
    );
    for (const id of ['b', 'c', 'd']) {
      const res = await mcp(app, 'prompts/get', { name: 'explain_schema', arguments: { connection_id: id } }, { headers: token.headers });
      expectRpcError(res, 403, -33007, 1);
    }
  });

  it('a readWrite token writing on b (external access readOnly) → 403 -33007', async () => {
    const token = mint(app, 'readWrite', { connections: 'all' });
    // Reading b is fine.
    toolOutput(await callTool(app, 'execute_query', { connection_id: 'b', sql: 'SELECT * FROM items_b' }, { headers: token.headers }));
    const res = await callTool(
      app,
      'execute_query',
      { connection_id: 'b', sql: "INSERT INTO items_b (label) VALUES ('two')" },
      { headers: token.headers },
    );
    expectRpcError(res, 403, -33007, 1);
  });

  it('a fullAccess token on b: confirm_destructive_operation → 403 -33007 (the lower of token and connection wins)', async () => {
    const token = mint(app, 'fullAccess', { connections: 'all' });
    const res = await callTool(
      app,
      'confirm_destructive_operation',
      { connection_id: 'b', sql: 'DROP TABLE items_b' },
      { headers: token.headers },
    );
    expectRpcError(res, 403, -33007, 1);
  });

  it('a readWrite token writing on a (external access readWrite) is asked for consent', async () => {
    const token = mint(app, 'readWrite', { connections: ['a'] });
    const res = await callTool(
      app,
      'execute_query',
      { connection_id: 'a', sql: "INSERT INTO items_a (label) VALUES ('two')" },
      { headers: token.headers, extraMeta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } },
    );
    expect(res.json.result.resultType).toBe('input_required');
  });
});

describe('per-caller rate and concurrency limits', () => {
  const gate = gatedTool();
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({
      auth: true,
      callerLimits: { requestsPerWindow: 5, windowSeconds: 60, concurrent: 2 },
      extraCapabilities: [gate.module],
    });
  });
  afterAll(async () => {
    gate.releaseAll();
    await app.dispose();
  });

  it('the 6th request in a window → 429 -33010 with Retry-After in whole seconds; another token is unaffected', async () => {
    const first = mint(app, 'readOnly', { name: 'busy caller' });
    for (let i = 1; i <= 5; i++) {
      expectModernSuccess(await mcp(app, 'tools/list', {}, { id: i, headers: first.headers }), i);
    }
    const res = await mcp(app, 'tools/list', {}, { id: 6, headers: first.headers });
    expectRpcError(res, 429, -33010, 6);
    expect(retryAfter(res)).toBeLessThanOrEqual(60);

    const second = mint(app, 'readOnly', { name: 'quiet caller' });
    expectModernSuccess(await mcp(app, 'tools/list', {}, { id: 7, headers: second.headers }), 7);
  });

  it('a rate-limited request is an `access`/`rateLimited` row naming the token (id and name) and the trace', async () => {
    const token = mint(app, 'readOnly', { name: 'logged caller' });
    for (let i = 1; i <= 5; i++) expectModernSuccess(await mcp(app, 'tools/list', {}, { id: i, headers: token.headers }), i);
    const traceparent = `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
    const res = await mcp(app, 'tools/list', {}, { headers: token.headers, extraMeta: { traceparent } });
    expectRpcError(res, 429, -33010, 1);
    const rows = app.activity.list({ category: 'access', outcome: 'rateLimited', tokenId: token.id });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ action: 'tools/list', token_id: token.id, traceparent });
    // decisions.md, "Activity log": each row carries the token's id and name.
    expect(rows[0]!.token_name).toBe('logged caller');
    expect(JSON.stringify(rows)).not.toContain(token.plaintext);
  });

  it('a 3rd concurrent request → 429 -33010 at once; after release a new call succeeds', async () => {
    const token = mint(app, 'readOnly', { name: 'concurrent caller' });
    const blocked = [1, 2].map((id) => callTool(app, gate.name, {}, { id, headers: token.headers }));
    await gate.untilWaiting(2);

    const third = mcp(app, 'tools/list', {}, { id: 3, headers: token.headers });
    const outcome = await Promise.race([
      third,
      new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 3_000)),
    ]);
    expect(outcome).not.toBe('waited');
    const res = outcome as RawResponse;
    expectRpcError(res, 429, -33010, 3);
    retryAfter(res);
    // The two were still held when the third was refused.
    expect(gate.waiting()).toBe(2);

    gate.releaseAll();
    for (const [index, pending] of blocked.entries()) {
      expect(toolOutput(await pending, index + 1)).toEqual({ released: true });
    }
    expectModernSuccess(await mcp(app, 'tools/list', {}, { id: 4, headers: token.headers }), 4);
  });
});

describe('per-caller limits for anonymous callers (authentication off)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ auth: false, callerLimits: { requestsPerWindow: 5, windowSeconds: 60, concurrent: 2 } });
  });
  afterAll(() => app.dispose());

  it('the 6th request from one address → 429 -33010 with Retry-After', async () => {
    for (let i = 1; i <= 5; i++) expectModernSuccess(await mcp(app, 'tools/list', {}, { id: i }), i);
    const res = await mcp(app, 'tools/list', {}, { id: 6 });
    expectRpcError(res, 429, -33010, 6);
    expect(retryAfter(res)).toBeLessThanOrEqual(60);
  });

  it('another address is unaffected (the caller is the address)', async (ctx) => {
    if (!(await secondLoopbackAvailable())) ctx.skip();
    // 127.0.0.1 used its window in the test before.
    expectRpcError(await mcp(app, 'tools/list'), 429, -33010, 1);
    const other = await mcpFrom(SECOND_LOOPBACK, app, 'tools/list');
    expect(other.status).toBe(200);
    expect(other.json.result.resultType).toBe('complete');
  });
});

describe('authentication off: the anonymous loopback caller', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ auth: false });
  });
  afterAll(() => app.dispose());

  it('is read-only, and a fullAccess bearer token cannot raise it', async () => {
    const token = mint(app, 'fullAccess');
    for (const headers of [{}, token.headers]) {
      const names = toolNames(expectModernSuccess(await mcp(app, 'tools/list', {}, { headers })));
      expect([...names].sort()).toEqual([...READ_ONLY_TOOLS].sort());
      const res = await callTool(
        app,
        'execute_query',
        { connection_id: 'demo', sql: 'UPDATE books SET title = title WHERE id = 1' },
        { headers },
      );
      expect(expectRpcError(res, 403, -33007, 1).data?.requiredScopes).toEqual(['tools:read', 'tools:write']);
    }
  });
});

describe('revocation of a token with a request in flight', () => {
  const gate = gatedTool();
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ auth: true, extraCapabilities: [gate.module] });
  });
  afterAll(async () => {
    gate.releaseAll();
    await app.dispose();
  });

  it('revoking ends the token’s in-flight request with -33002, and its next request gets 401 -33009', async () => {
    const token = mint(app, 'readOnly', { name: 'revoked mid-call' });
    const other = mint(app, 'readOnly', { name: 'bystander' });
    const inFlight = callTool(app, gate.name, {}, { id: 'held', headers: token.headers });
    const bystander = callTool(app, gate.name, {}, { id: 'bystander', headers: other.headers });
    await gate.untilWaiting(2);
    app.tokens.revoke(token.id, Date.now());
    try {
      const outcome = await Promise.race([
        inFlight,
        new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 3_000)),
      ]);
      expect(outcome, 'the revoked token’s request was not cancelled').not.toBe('still running');
      expectRpcError(outcome as RawResponse, 200, -33002, 'held');
    } finally {
      gate.releaseAll();
    }
    // Another token's request is not touched.
    expect(toolOutput(await bystander, 'bystander')).toEqual({ released: true });
    const next = await mcp(app, 'tools/list', {}, { headers: token.headers });
    expectRpcError(next, 401, -33009, 1);
    expect(next.headers.get('www-authenticate')).toBe(INVALID_TOKEN);
  });
});

/** The system clock, shifted forward on demand: the slow-down's window passes without a wait. */
class ShiftedClock implements AppClock {
  #offset = 0;
  setTimeout = (fn: () => void, ms: number) => setTimeout(fn, ms);
  clearTimeout = (id: unknown) => clearTimeout(id as NodeJS.Timeout);
  now = () => Date.now() + this.#offset;
  advance(ms: number) {
    this.#offset += ms;
  }
}

describe('the shared slow-down of tokens that do not verify (decisions.md: 20 per 10 s, every caller)', () => {
  const { perWindow, windowMs } = UNVERIFIED_BEARERS;
  let app: TestApp;
  let clock: ShiftedClock;
  let valid: Minted;

  beforeEach(async () => {
    clock = new ShiftedClock();
    app = await startTestApp({ auth: true, clock });
    valid = mint(app, 'readOnly', { name: 'valid' });
  });
  afterEach(() => app.dispose());

  const sendBad = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const res = await mcp(app, 'tools/list', {}, { id: `bad-${i}`, headers: bearer(unknownToken()) });
      expectRpcError(res, 401, -33009, `bad-${i}`);
    }
  };

  it(`${perWindow} bad tokens (each 401) → the next bad one → 429 -33010 with Retry-After ≤ ${windowMs / 1000}; a valid token still passes`, async () => {
    await sendBad(perWindow);
    const res = await mcp(app, 'tools/list', {}, { id: 'slowed', headers: bearer(unknownToken()) });
    expectRpcError(res, 429, -33010, 'slowed');
    expect(retryAfter(res)).toBeLessThanOrEqual(windowMs / 1000);
    expectModernSuccess(await mcp(app, 'tools/list', {}, { id: 'valid', headers: valid.headers }), 'valid');
  });

  it('a flood of bad tokens never refuses the bridge token from mcp-handshake.json, nor the console', async () => {
    await sendBad(perWindow);
    for (let i = 0; i < 50; i++) expectRpcError(await mcp(app, 'tools/list', {}, { headers: bearer(unknownToken()) }), 429, -33010, 1);
    const { bridgeToken } = JSON.parse(readFileSync(join(app.dataDir, 'mcp-handshake.json'), 'utf8')) as { bridgeToken: string };
    expectModernSuccess(await mcp(app, 'tools/list', {}, { headers: bearer(bridgeToken) }));
    expectModernSuccess(await mcp(app, 'tools/list', {}, { headers: valid.headers }));
    const console = await openConsole(app);
    expect((await console.get('/api/state')).status).toBe(200);
  });

  it('it is keyed on no address: 127.0.0.2 shares the budget, and a valid token passes from both', async (ctx) => {
    if (!(await secondLoopbackAvailable())) ctx.skip();
    await sendBad(perWindow);
    expect((await mcpFrom(SECOND_LOOPBACK, app, 'tools/list', {}, bearer(unknownToken()))).status).toBe(429);
    const other = await mcpFrom(SECOND_LOOPBACK, app, 'tools/list', {}, valid.headers);
    expect(other.status).toBe(200);
    expect(other.json.result.resultType).toBe('complete');
    expectModernSuccess(await mcp(app, 'tools/list', {}, { headers: valid.headers }));
  });

  it('the kinds of failure all count: malformed, unknown, revoked, expired', async () => {
    const revoked = mint(app, 'readOnly');
    app.tokens.revoke(revoked.id, Date.now());
    const expired = mint(app, 'readOnly', { expiresInDays: 1, now: Date.now() - 2 * DAY_MS });
    const attempts: [Record<string, string>, number][] = [
      [{ authorization: 'Basic x' }, -33009],
      [{ authorization: 'Bearer' }, -33009],
      [bearer(unknownToken()), -33009],
      [revoked.headers, -33009],
      [expired.headers, -33008],
    ];
    for (let round = 0; round < perWindow / attempts.length; round++) {
      for (const [headers, code] of attempts) expectRpcError(await mcp(app, 'tools/list', {}, { headers }), 401, code, 1);
    }
    expectRpcError(await mcp(app, 'tools/list', {}, { headers: expired.headers }), 429, -33010, 1);
  });

  it('requests with no Authorization header do not count (50 of them, then a bad token is still a plain 401)', async () => {
    for (let i = 0; i < 50; i++) {
      const res = await mcp(app, 'tools/list', {}, { id: i });
      expectRpcError(res, 401, -33009, i);
      expect(res.headers.get('www-authenticate')).toBe(CHALLENGE);
    }
    await sendBad(perWindow);
  });

  it('the budget comes back when the window has passed', async () => {
    await sendBad(perWindow);
    expectRpcError(await mcp(app, 'tools/list', {}, { headers: bearer(unknownToken()) }), 429, -33010, 1);
    clock.advance(windowMs);
    await sendBad(perWindow);
  });

  it('the log keeps one `auth`/`rateLimited` row per window, however many are refused', async () => {
    await sendBad(perWindow);
    for (let i = 0; i < 30; i++) expectRpcError(await mcp(app, 'tools/list', {}, { headers: bearer(unknownToken()) }), 429, -33010, 1);
    expect(app.activity.list({ category: 'auth', outcome: 'rateLimited' })).toHaveLength(1);
    expect(app.activity.list({ category: 'auth', outcome: 'denied' })).toHaveLength(perWindow);
  });
});
