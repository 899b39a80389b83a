import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import { ACCEPTED, CONSENT_KEY, ELICITATION_META, expectInputRequired, repeatToolCall } from '../helpers/consentRoundTrip.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, createFixture, type EngineFixture } from '../helpers/engines.js';
import { expectModernSuccess, expectRpcError, expectToolError, expectToolSuccess } from '../helpers/rpcAssertions.js';
import { callTool, mcp, mintToken, startTestApp, type TestApp } from '../helpers/testApp.js';
import { unfenced } from '../helpers/dataFence.js';

/**
 * The per-connection resources (issue 19, item 4) on each engine: the connection's databases and
 * schemas, and the query history searched by text and filtered by kind and outcome.
 */

const engines = await availableEngines();

describe.each(engines)('per-connection resources on %s', (engine) => {
  skipListed('resourcesCatalogue', engine);
  let fixture: EngineFixture;
  let app: TestApp;
  let dataDir: string;
  let headers: Record<string, string>;

  const read = async (uri: string) => {
    const result = expectModernSuccess(await mcp(app, 'resources/read', { uri }, { headers }));
    expect(result.contents).toHaveLength(1);
    expect(result.contents[0]).toEqual({ uri, mimeType: 'text/plain', text: expect.any(String) });
    return { body: JSON.parse(unfenced(result.contents[0].text)), ttlMs: result.ttlMs, cacheScope: result.cacheScope };
  };
  const history = async (query: string) =>
    (await read(`sluice://connections/db/history${query}`)).body.entries as Record<string, unknown>[];
  const query = (sql: string) => callTool(app, 'execute_query', { connection_id: 'db', sql }, { headers });

  beforeAll(async () => {
    fixture = await createFixture(engine);
    dataDir = mkdtempSync(join(tmpdir(), `sluice-resources-${engine}-`));
    writeConfig(dataDir, { connections: [fixture.connection] });
    app = await startTestApp({ dataDir, auth: true });
    headers = mintToken(app, `${engine} resources`).headers;
  });
  afterAll(async () => {
    await app?.dispose();
    await fixture?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resources/list names the connection’s databases and schemas', async () => {
    const { resources } = expectModernSuccess(await mcp(app, 'resources/list', {}, { headers }));
    expect(resources).toEqual(
      expect.arrayContaining([
        {
          uri: 'sluice://connections/db/databases',
          name: 'db-databases',
          title: 'Fixture: databases',
          description: 'Databases on the server of Fixture.',
          mimeType: 'application/json',
        },
        {
          uri: 'sluice://connections/db/schemas',
          name: 'db-schemas',
          title: 'Fixture: schemas',
          description: 'Schemas of Fixture and its default one.',
          mimeType: 'application/json',
        },
      ]),
    );
  });

  it('the databases resource reads as list_databases, cached 30 s', async () => {
    const { body, ttlMs, cacheScope } = await read('sluice://connections/db/databases');
    expect([ttlMs, cacheScope]).toEqual([30_000, 'private']);
    expect(Object.keys(body)).toEqual(['databases']);
    expect(body.databases).toContain(fixture.database);
    const tool = expectToolSuccess(await callTool(app, 'list_databases', { connection_id: 'db' }, { headers }));
    expect(body).toEqual(tool);
  });

  it('the schemas resource reads the schemas and the default one, cached 30 s', async () => {
    const { body, ttlMs, cacheScope } = await read('sluice://connections/db/schemas');
    expect([ttlMs, cacheScope]).toEqual([30_000, 'private']);
    const defaultSchema = { sqlite: 'main', postgres: 'public', mysql: fixture.database, duckdb: 'main' }[engine];
    expect(body).toEqual({ schemas: expect.arrayContaining([defaultSchema]), default_schema: defaultSchema });
  });

  it.skipIf(engine === 'sqlite')('the schemas resource reads another database of the server when given one', async () => {
    const { body } = await read('sluice://connections/db/schemas?database=test');
    expect(body.default_schema).toBe(engine === 'postgres' ? 'public' : 'test');
    expect(body.schemas).toContain(body.default_schema);
  });

  it('an unknown connection is -32602, a parameter the template lacks too', async () => {
    for (const uri of [
      'sluice://connections/nope/databases',
      'sluice://connections/nope/schemas',
      'sluice://connections/db/databases?schema=main',
      'sluice://connections/db/schemas?colour=red',
    ]) {
      expectRpcError(await mcp(app, 'resources/read', { uri }, { headers }), 400, -32602, 1);
    }
  });

  it('the history searches statement text in any case, filters by kind and outcome, newest first', async () => {
    expectToolSuccess(await query('SELECT title FROM books WHERE id = 1'));
    expectToolSuccess(await query('SELECT name FROM authors WHERE id = 2'));
    expectToolError(await query('SELECT no_such_column FROM books'), 'query_failed');
    const insert = { connection_id: 'db', sql: "INSERT INTO authors (id, name) VALUES (20, 'Tove Jansson')" };
    const state = expectInputRequired(
      await callTool(app, 'execute_query', insert, { headers, extraMeta: ELICITATION_META }),
      insert.sql,
    );
    const done = await repeatToolCall(
      app,
      'execute_query',
      insert,
      { requestState: state, inputResponses: { [CONSENT_KEY]: ACCEPTED } },
      { headers, extraMeta: ELICITATION_META },
    );
    expect(expectToolSuccess(done)).toMatchObject({ statement_kind: 'write', rows_affected: 1 });

    const sqlOf = (entries: Record<string, unknown>[]) => entries.map((e) => e.sql);
    expect(sqlOf(await history(''))).toEqual([
      insert.sql,
      'SELECT no_such_column FROM books',
      'SELECT name FROM authors WHERE id = 2',
      'SELECT title FROM books WHERE id = 1',
    ]);
    expect(sqlOf(await history('?search=FROM%20BOOKS'))).toEqual([
      'SELECT no_such_column FROM books',
      'SELECT title FROM books WHERE id = 1',
    ]);
    expect(sqlOf(await history('?search=books&outcome=success'))).toEqual(['SELECT title FROM books WHERE id = 1']);
    expect(await history('?outcome=error')).toEqual([
      {
        sql: 'SELECT no_such_column FROM books',
        statement_kind: 'read',
        executed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        duration_ms: expect.any(Number),
        row_count: 0,
        outcome: 'error',
      },
    ]);
    expect(sqlOf(await history('?kind=write'))).toEqual([insert.sql]);
    expect(sqlOf(await history('?kind=read&limit=2'))).toEqual([
      'SELECT no_such_column FROM books',
      'SELECT name FROM authors WHERE id = 2',
    ]);
    expect(await history('?kind=ddl')).toEqual([]);
    expect(await history(`?search=${'x'.repeat(256)}`)).toEqual([]);
  });

  it('bad history parameters are -32602', async () => {
    for (const query of [
      '?limit=0',
      '?limit=201',
      '?limit=1.5',
      '?limit=ten',
      '?kind=select',
      '?outcome=failed',
      `?search=${'x'.repeat(257)}`,
    ]) {
      const uri = `sluice://connections/db/history${query}`;
      const error = expectRpcError(await mcp(app, 'resources/read', { uri }, { headers }), 400, -32602, 1);
      expect(error.message, query).toMatch(/^invalid_argument: (limit|kind|outcome|search) /);
    }
  });
});
