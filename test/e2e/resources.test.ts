import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcp, startTestApp, type TestApp } from '../helpers/testApp.js';
import { unfenced } from '../helpers/dataFence.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.dispose());

async function read(uri: string) {
  const res = await mcp(app, 'resources/read', { uri });
  expect(res.status, uri).toBe(200);
  const [content] = res.json.result.contents;
  expect(content).toMatchObject({ uri, mimeType: 'text/plain' });
  return {
    body: JSON.parse(unfenced(content.text)),
    ttlMs: res.json.result.ttlMs,
    cacheScope: res.json.result.cacheScope,
  };
}

describe('resources', () => {
  it('resources/list names the connections and, per connection, its schema, tables, history and each table', async () => {
    const res = await mcp(app, 'resources/list');
    const uris = res.json.result.resources.map((r: { uri: string }) => r.uri);
    expect(uris).toEqual(
      expect.arrayContaining([
        'sluice://connections',
        'sluice://connections/demo/schema',
        'sluice://connections/demo/tables',
        'sluice://connections/demo/history',
        'sluice://connections/demo/tables/books',
        'sluice://connections/demo/tables/books/ddl',
        'sluice://connections/demo/databases',
        'sluice://connections/demo/schemas',
      ]),
    );
    for (const resource of res.json.result.resources) expect(resource.mimeType).toBe('application/json');
  });

  it('resources/templates/list gives the five templates of decisions.md, then databases and schemas', async () => {
    const res = await mcp(app, 'resources/templates/list');
    expect(res.json.result.resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate)).toEqual([
      'sluice://connections/{connection_id}/schema',
      'sluice://connections/{connection_id}/tables{?schema}',
      'sluice://connections/{connection_id}/tables/{table}{?schema}',
      'sluice://connections/{connection_id}/tables/{table}/ddl{?schema}',
      'sluice://connections/{connection_id}/history{?limit,search,kind,outcome}',
      'sluice://connections/{connection_id}/databases',
      'sluice://connections/{connection_id}/schemas{?database}',
    ]);
  });

  it('each resource reads with its lifetime from decisions.md', async () => {
    const expected: [string, number][] = [
      ['sluice://connections', 5_000],
      ['sluice://connections/demo/schema', 30_000],
      ['sluice://connections/demo/tables?schema=main', 30_000],
      ['sluice://connections/demo/tables/books', 60_000],
      ['sluice://connections/demo/tables/books/ddl?schema=main', 300_000],
      ['sluice://connections/demo/history?limit=5', 5_000],
      ['sluice://connections/demo/databases', 30_000],
      ['sluice://connections/demo/schemas', 30_000],
    ];
    for (const [uri, ttl] of expected) {
      const { ttlMs, cacheScope } = await read(uri);
      expect([uri, ttlMs, cacheScope]).toEqual([uri, ttl, 'private']);
    }
  });

  it('the schema resource lists every table with its columns', async () => {
    const { body } = await read('sluice://connections/demo/schema');
    const books = body.tables.find((t: { name: string }) => t.name === 'books');
    expect(books.columns).toEqual(expect.arrayContaining([{ name: 'title', type: 'TEXT' }]));
  });

  it('history shows statements run through execute_query, newest first, and searches them', async () => {
    await mcp(app, 'tools/call', {
      name: 'execute_query',
      arguments: { connection_id: 'demo', sql: 'SELECT 41' },
    });
    await mcp(app, 'tools/call', {
      name: 'execute_query',
      arguments: { connection_id: 'demo', sql: 'SELECT 42' },
    });
    const { body } = await read('sluice://connections/demo/history?limit=1');
    expect(body.entries).toEqual([
      expect.objectContaining({ sql: 'SELECT 42', statement_kind: 'read', outcome: 'success' }),
    ]);
    const found = await read('sluice://connections/demo/history?search=41');
    expect(found.body.entries.map((e: { sql: string }) => e.sql)).toEqual(['SELECT 41']);
  });

  it('unknown resources, unknown tables and bad parameters are -32602', async () => {
    for (const uri of [
      'sluice://nothing',
      'https://example.com/',
      'sluice://connections/demo/tables/nope',
      'sluice://connections/demo/history?limit=9999',
      'sluice://connections/demo/tables?colour=red',
      // An unknown schema was -32603 on SQLite (issue 16, finding 10).
      'sluice://connections/demo/tables?schema=nope',
      'sluice://connections/demo/tables/books?schema=nope',
      'sluice://connections/demo/tables/books/ddl?schema=nope',
      'not a uri',
    ]) {
      const res = await mcp(app, 'resources/read', { uri });
      expect([uri, res.status, res.json.error?.code]).toEqual([uri, 400, -32602]);
    }
  });
});
