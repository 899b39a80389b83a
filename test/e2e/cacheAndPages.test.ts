import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapabilityModules, Prompt, ResourceFamily } from '../../src/capabilities/types.js';
import { expectModernSuccess, expectRpcError } from '../helpers/rpcAssertions.js';
import { mcp, startTestApp, type TestApp } from '../helpers/testApp.js';
import { READ_ONLY_TOOLS, WRITE_TOOLS } from '../helpers/catalogue.js';

/** Contract, "Cache hints" and "Pagination"; decisions.md, "Catalogue" (tools, resource lifetimes). */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.dispose());

const hintOf = (result: Record<string, unknown>) => ({ ttlMs: result.ttlMs, cacheScope: result.cacheScope });
const noHint = { ttlMs: undefined, cacheScope: undefined };

describe('cache hints', () => {
  it.each([
    ['server/discover', 3_600_000, 'public'],
    ['prompts/list', 3_600_000, 'public'],
    ['resources/templates/list', 3_600_000, 'public'],
    ['tools/list', 300_000, 'private'],
    ['resources/list', 30_000, 'private'],
  ])('%s: ttlMs %i, cacheScope %s', async (method, ttlMs, cacheScope) => {
    const result = expectModernSuccess(await mcp(app, method));
    expect(hintOf(result)).toEqual({ ttlMs, cacheScope });
    expect(Number.isInteger(result.ttlMs)).toBe(true);
  });

  it.each([
    ['sluice://connections', 5_000],
    ['sluice://connections/demo/tables/books/ddl', 300_000],
    // The lifetimes decisions.md gives the other resources.
    ['sluice://connections/demo/schema', 30_000],
    ['sluice://connections/demo/tables', 30_000],
    ['sluice://connections/demo/tables/books', 60_000],
    ['sluice://connections/demo/history', 5_000],
    ['sluice://connections/demo/databases', 30_000],
    ['sluice://connections/demo/schemas', 30_000],
  ])('resources/read %s: ttlMs %i, private', async (uri, ttlMs) => {
    const result = expectModernSuccess(await mcp(app, 'resources/read', { uri }));
    expect(hintOf(result)).toEqual({ ttlMs, cacheScope: 'private' });
  });

  it('resources/read: every listed resource has a private ttlMs between 5000 and 300000', async () => {
    const list = expectModernSuccess(await mcp(app, 'resources/list'));
    expect(list.resources.length).toBeGreaterThan(0);
    for (const { uri } of list.resources as { uri: string }[]) {
      const result = expectModernSuccess(await mcp(app, 'resources/read', { uri }));
      expect(result.cacheScope, uri).toBe('private');
      expect(Number.isInteger(result.ttlMs), uri).toBe(true);
      expect(result.ttlMs, uri).toBeGreaterThanOrEqual(5_000);
      expect(result.ttlMs, uri).toBeLessThanOrEqual(300_000);
    }
  });

  it.each([
    ['tools/call', { name: 'list_connections', arguments: {} }],
    ['tools/call', { name: 'describe_table', arguments: { connection_id: 'nope', table: 'x' } }],
    ['prompts/get', { name: 'explain_table', arguments: { connection_id: 'demo', table: 'books' } }],
    [
      'completion/complete',
      { ref: { type: 'ref/prompt', name: 'explain_table' }, argument: { name: 'connection_id', value: '' } },
    ],
  ])('%s carries neither ttlMs nor cacheScope', async (method, params) => {
    const result = expectModernSuccess(await mcp(app, method, params));
    expect(hintOf(result)).toEqual(noHint);
    expect('ttlMs' in result).toBe(false);
    expect('cacheScope' in result).toBe(false);
  });

  it.each([
    ['requestState', { requestState: 'opaque-state' }],
    ['inputResponses', { inputResponses: {} }],
    [
      'inputResponses with an answer',
      { inputResponses: { approve_statement: { action: 'accept', content: { approved: true } } } },
    ],
    ['both', { requestState: 'opaque-state', inputResponses: {} }],
  ])('resources/read carrying %s carries no hint', async (_label, extra) => {
    // No resource asks for input yet, so the round-trip fields are answered, and never cached.
    const res = await mcp(app, 'resources/read', { uri: 'sluice://connections', ...extra });
    expect(hintOf(expectModernSuccess(res))).toEqual(noHint);
  });

  it('tools/list carrying requestState carries no hint', async () => {
    const res = await mcp(app, 'tools/list', { requestState: 'opaque-state' });
    expect(hintOf(expectModernSuccess(res))).toEqual(noHint);
  });

  it('errors carry no hint', async () => {
    const res = await mcp(app, 'resources/read', { uri: 'sluice://connections/demo/tables/nope' });
    const error = expectRpcError(res, 400, -32602, 1);
    expect(error).not.toHaveProperty('ttlMs');
    expect(res.json).not.toHaveProperty('result');
  });
});

/** A resource family with the given lifetime at `fixture://<name>`. */
const fixtureResource = (name: string, ttlMs: number): ResourceFamily => ({
  uriTemplate: `fixture://${name}`,
  name,
  title: name,
  description: `A fixture resource with ttlMs ${ttlMs}.`,
  mimeType: 'application/json',
  ttlMs,
  match: (uri) => (uri.href === `fixture://${name}` ? {} : undefined),
  list: async () => [{ uri: `fixture://${name}`, name, mimeType: 'application/json' }],
  read: async () => ({ name }),
});

/** A prompt whose rendering (wrongly) carries cache hints, which must not reach the wire. */
const hintedPrompt: Prompt = {
  name: 'hinted_prompt',
  title: 'Hinted prompt',
  description: 'A fixture whose result carries ttlMs and cacheScope.',
  arguments: [],
  render: async () =>
    ({
      description: 'hinted',
      messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }],
      ttlMs: 60_000,
      cacheScope: 'public',
    }) as Awaited<ReturnType<Prompt['render']>>,
};

describe('cache hints: limits and stray hints', () => {
  const fixtures: CapabilityModules = {
    tools: [],
    resources: [fixtureResource('quick', 10), fixtureResource('slow', 86_400_000)],
    prompts: [hintedPrompt],
  };
  let fixtureApp: TestApp;
  beforeAll(async () => {
    fixtureApp = await startTestApp({ extraCapabilities: [fixtures] });
  });
  afterAll(() => fixtureApp.dispose());

  it.each([
    ['fixture://quick', 5_000],
    ['fixture://slow', 300_000],
  ])('resources/read %s stays between 5000 and 300000 (ttlMs %i)', async (uri, ttlMs) => {
    const result = expectModernSuccess(await mcp(fixtureApp, 'resources/read', { uri }));
    expect(hintOf(result)).toEqual({ ttlMs, cacheScope: 'private' });
  });

  it('a hint reaching the result of another method (prompts/get) is removed before sending', async () => {
    const result = expectModernSuccess(await mcp(fixtureApp, 'prompts/get', { name: 'hinted_prompt' }));
    expect(result.messages).toHaveLength(1);
    expect('ttlMs' in result).toBe(false);
    expect('cacheScope' in result).toBe(false);
  });
});

describe('tools/list', () => {
  it('lists the catalogue’s tools minus confirm_destructive_operation (the anonymous principal lacks admin)', async () => {
    const result = expectModernSuccess(await mcp(app, 'tools/list'));
    const names = (result.tools as { name: string }[]).map((t) => t.name);
    expect([...names].sort()).toEqual([...READ_ONLY_TOOLS].sort());
    expect(names).not.toContain('confirm_destructive_operation');
    expect(result.nextCursor).toBeUndefined();
  });

  it('every tool declares its name, title, description, arguments, output schema and annotations', async () => {
    const result = expectModernSuccess(await mcp(app, 'tools/list'));
    for (const tool of result.tools as Record<string, any>[]) {
      expect(Object.keys(tool).sort(), tool.name).toEqual(['annotations', 'description', 'inputSchema', 'name', 'outputSchema', 'title']);
      expect(typeof tool.description, tool.name).toBe('string');
      expect(tool.inputSchema?.type, tool.name).toBe('object');
      expect(tool.inputSchema.properties, tool.name).toBeTypeOf('object');
      // test/e2e/outputSchemas.test.ts holds every tool's results to it.
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      // A read-only tool says so; one that may write says whether it destroys (MCP's defaults otherwise).
      expect(tool.annotations, tool.name).toEqual(
        ['execute_query', ...WRITE_TOOLS].includes(tool.name) ? { readOnlyHint: false, destructiveHint: false } : { readOnlyHint: true },
      );
    }
  });
});

describe('pagination', () => {
  const TABLES = 60;
  let dir: string;
  let wide: TestApp;
  let expectedUris: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-wide-'));
    const path = join(dir, 'wide.sqlite');
    const db = new Database(path);
    const tableNames = Array.from({ length: TABLES }, (_, i) => `t_${String(i).padStart(2, '0')}`);
    db.exec(tableNames.map((t) => `CREATE TABLE ${t} (id INTEGER PRIMARY KEY, label TEXT);`).join('\n'));
    db.close();
    const config = {
      connections: [
        { id: 'wide', name: 'Wide', engine: 'sqlite', path, externalAccess: 'readOnly', aiPolicy: 'always' },
      ],
    };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    wide = await startTestApp({ dataDir: dir });
    const base = 'sluice://connections';
    expectedUris = [
      base,
      `${base}/wide/schema`,
      `${base}/wide/tables`,
      `${base}/wide/history`,
      `${base}/wide/databases`,
      `${base}/wide/schemas`,
      ...tableNames.flatMap((t) => [`${base}/wide/tables/${t}`, `${base}/wide/tables/${t}/ddl`]),
    ];
  });
  afterAll(async () => {
    await wide?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  async function walk(): Promise<{ pages: { uris: string[]; nextCursor?: string }[] }> {
    const pages: { uris: string[]; nextCursor?: string }[] = [];
    let cursor: string | undefined;
    do {
      const result = expectModernSuccess(await mcp(wide, 'resources/list', cursor ? { cursor } : {}));
      pages.push({
        uris: (result.resources as { uri: string }[]).map((r) => r.uri),
        nextCursor: result.nextCursor,
      });
      cursor = result.nextCursor;
      expect(pages.length).toBeLessThan(20);
    } while (cursor !== undefined);
    return { pages };
  }

  it('resources/list pages hold 50 items with nextCursor; the last the rest without one', async () => {
    const { pages } = await walk();
    expect(expectedUris.length).toBeGreaterThan(50);
    expect(pages.length).toBe(Math.ceil(expectedUris.length / 50));
    const first = pages[0]!;
    expect(first.uris).toHaveLength(50);
    expect(typeof first.nextCursor).toBe('string');
    for (const page of pages.slice(0, -1)) {
      expect(page.uris).toHaveLength(50);
      expect(typeof page.nextCursor).toBe('string');
    }
    const last = pages.at(-1)!;
    expect(last.uris).toHaveLength(expectedUris.length - 50 * (pages.length - 1));
    expect(last.nextCursor).toBeUndefined();
  });

  it('no duplicates across pages, and the union equals every resource', async () => {
    const all = (await walk()).pages.flatMap((p) => p.uris);
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort()).toEqual([...expectedUris].sort());
  });

  it('a cursor can be sent again (stateless) and gives the same page', async () => {
    const first = expectModernSuccess(await mcp(wide, 'resources/list'));
    const a = expectModernSuccess(await mcp(wide, 'resources/list', { cursor: first.nextCursor }));
    const b = expectModernSuccess(await mcp(wide, 'resources/list', { cursor: first.nextCursor }));
    expect(b.resources).toEqual(a.resources);
  });

  it('every page carries the resources/list cache hint', async () => {
    const first = expectModernSuccess(await mcp(wide, 'resources/list'));
    const second = expectModernSuccess(await mcp(wide, 'resources/list', { cursor: first.nextCursor }));
    expect(hintOf(second)).toEqual({ ttlMs: 30_000, cacheScope: 'private' });
  });

  it.each(['tools/list', 'prompts/list', 'resources/templates/list'])(
    'a resources/list cursor given to %s → 400 -32602',
    async (method) => {
      const first = expectModernSuccess(await mcp(wide, 'resources/list'));
      expectRpcError(await mcp(wide, method, { cursor: first.nextCursor }, { id: 4 }), 400, -32602, 4);
    },
  );

  it('a tampered cursor (one character flipped) → 400 -32602', async () => {
    const { nextCursor } = expectModernSuccess(await mcp(wide, 'resources/list'));
    const cursor = nextCursor as string;
    // Every position but the last carries six meaningful bits, so any other character changes the bytes.
    for (const at of [0, 5, Math.floor(cursor.length / 2), cursor.length - 2]) {
      const flipped = cursor[at] === 'A' ? 'B' : 'A';
      const tampered = cursor.slice(0, at) + flipped + cursor.slice(at + 1);
      expectRpcError(await mcp(wide, 'resources/list', { cursor: tampered }, { id: at }), 400, -32602, at);
    }
  });

  it('a cursor whose readable part was edited (another offset, another method) → 400 -32602', async () => {
    const { nextCursor } = expectModernSuccess(await mcp(wide, 'resources/list'));
    const raw = Buffer.from(nextCursor as string, 'base64url');
    const text = raw.toString('latin1');
    for (const [from, to] of [
      ['50', '10'],
      ['resources/list', 'prompts/list'],
    ] as const) {
      if (!text.includes(from)) continue; // The cursor is opaque; edit only what can be found.
      const edited = Buffer.from(text.replace(from, to), 'latin1').toString('base64url');
      expectRpcError(await mcp(wide, 'resources/list', { cursor: edited }), 400, -32602, 1);
    }
  });

  it.each([
    ['a random string', 'bm90LWEtY3Vyc29y'],
    ['garbage', '!!!not a cursor!!!'],
    ['an empty string', ''],
    ['a number', 50],
    ['an object', { offset: 50 }],
  ])('%s as the cursor → 400 -32602', async (_label, cursor) => {
    expectRpcError(await mcp(wide, 'resources/list', { cursor }), 400, -32602, 1);
  });

  it('a random string as the cursor of tools/list and prompts/list → 400 -32602', async () => {
    expectRpcError(await mcp(wide, 'tools/list', { cursor: 'abc' }), 400, -32602, 1);
    expectRpcError(await mcp(wide, 'prompts/list', { cursor: 'abc' }), 400, -32602, 1);
  });
});
