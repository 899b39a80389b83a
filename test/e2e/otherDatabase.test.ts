import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import { DATABASES } from '../../src/core/contract.js';
import { ACCEPTED, CONSENT_KEY, ELICITATION_META, expectInputRequired, repeatToolCall } from '../helpers/consentRoundTrip.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, createFixture, type EngineFixture, MYSQL_URL, POSTGRES_URL } from '../helpers/engines.js';
import { expectModernSuccess, expectToolError } from '../helpers/rpcAssertions.js';
import { callTool, mintToken, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * A call's `database` (issue 19): on PostgreSQL and MySQL a tool can work on another database of the
 * connection's server without a new saved connection; SQLite has one database, named as list_databases
 * names it. Writes there still ask, and the question names the database they land in.
 */

const engines = await availableEngines();

/** Creates a second database on the fixture's server, with one table, and returns its name and how to drop it. */
async function otherDatabaseBeside(engine: string): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `sluice_other_${randomBytes(4).toString('hex')}`;
  if (engine === 'postgres') {
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const other = new pg.Client({ connectionString: POSTGRES_URL.replace(/\/[^/]*$/, `/${name}`) });
    await other.connect();
    await other.query('CREATE TABLE elsewhere (id INTEGER PRIMARY KEY, label TEXT)');
    await other.query("INSERT INTO elsewhere VALUES (1, 'over there')");
    await other.end();
    return {
      name,
      async drop() {
        const cleanup = new pg.Client({ connectionString: POSTGRES_URL });
        await cleanup.connect();
        await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await cleanup.end();
      },
    };
  }
  const admin = await mysql.createConnection(MYSQL_URL);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.query(`CREATE TABLE ${name}.elsewhere (id INTEGER PRIMARY KEY, label TEXT)`);
  await admin.query(`INSERT INTO ${name}.elsewhere VALUES (1, 'over there')`);
  await admin.end();
  return {
    name,
    async drop() {
      const cleanup = await mysql.createConnection(MYSQL_URL);
      await cleanup.query(`DROP DATABASE IF EXISTS ${name}`);
      await cleanup.end();
    },
  };
}

describe.each(engines)('the database argument on %s', (engine) => {
  skipListed('otherDatabase', engine);
  let fixture: EngineFixture;
  let app: TestApp;
  let dataDir: string;
  let headers: Record<string, string>;
  let other: { name: string; drop(): Promise<void> } | undefined;

  const call = (name: string, args: Record<string, unknown>, extraMeta?: Record<string, unknown>) =>
    callTool(app, name, { connection_id: 'db', ...args }, { headers, ...(extraMeta ? { extraMeta } : {}) });
  const structured = async (name: string, args: Record<string, unknown>) => {
    const result = expectModernSuccess(await call(name, args));
    expect(result.isError, JSON.stringify(result.content)).toBe(false);
    return result.structuredContent;
  };

  beforeAll(async () => {
    fixture = await createFixture(engine);
    if (engine === 'postgres' || engine === 'mysql') other = await otherDatabaseBeside(engine);
    dataDir = mkdtempSync(join(tmpdir(), `sluice-otherdb-${engine}-`));
    writeConfig(dataDir, { connections: [fixture.connection] });
    app = await startTestApp({ dataDir, auth: true });
    headers = mintToken(app, `${engine} databases`).headers;
  });
  afterAll(async () => {
    await app?.dispose();
    await other?.drop();
    await fixture?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('naming the connection’s own database is the connection itself', async () => {
    const { databases } = (await structured('list_databases', {})) as { databases: string[] };
    expect(databases).toContain(fixture.database);
    const own = (await structured('list_tables', { database: fixture.database })) as { tables: { name: string }[] };
    expect(own.tables.map((t) => t.name)).toContain('books');
  });

  it('a database that does not exist is not_found', async () => {
    expectToolError(await call('list_tables', { database: 'sluice_no_such_database' }), 'not_found');
  });

  it('lists, describes and reads another database of the same server', async (context) => {
    if (engine === 'sqlite') return context.skip('a SQLite file is one database');
    const name = (other as { name: string }).name;
    const tables = (await structured('list_tables', { database: name })) as { tables: { name: string }[] };
    expect(tables.tables.map((t) => t.name)).toEqual(['elsewhere']);
    const described = (await structured('describe_table', { database: name, table: 'elsewhere' })) as { columns: { name: string }[] };
    expect(described.columns.map((c) => c.name)).toEqual(['id', 'label']);
    const read = (await structured('execute_query', { database: name, sql: 'SELECT label FROM elsewhere' })) as { rows: unknown[][] };
    expect(read.rows).toEqual([['over there']]);
    // The connection's own database is unchanged by it.
    expectToolError(await call('describe_table', { table: 'elsewhere' }), 'not_found');
  });

  it('a write there asks first, and the question names that database', async (context) => {
    if (engine === 'sqlite') return context.skip('a SQLite file is one database');
    const name = (other as { name: string }).name;
    const args = { connection_id: 'db', database: name, sql: "INSERT INTO elsewhere VALUES (2, 'added')" };
    const first = await callTool(app, 'execute_query', args, { headers, extraMeta: ELICITATION_META });
    if (first.json.result?.isError) throw new Error(JSON.stringify(first.json.result.content));
    const requestState = expectInputRequired(first, args.sql);
    const message = String((first.json.result.inputRequests[CONSENT_KEY] as { params: { message: string } }).params.message);
    expect(message).toContain(name);
    const done = await repeatToolCall(app, 'execute_query', args, { requestState, inputResponses: { [CONSENT_KEY]: ACCEPTED } }, { headers, extraMeta: ELICITATION_META });
    expect(expectModernSuccess(done).structuredContent).toMatchObject({ rows_affected: 1 });
    const read = (await structured('execute_query', { database: name, sql: 'SELECT count(*) FROM elsewhere' })) as { rows: unknown[][] };
    expect(Number(read.rows[0]?.[0])).toBe(2);
  });

  it('making room for more databases lets a statement running on the one closed finish', async (context) => {
    if (engine === 'sqlite') return context.skip('a SQLite file is one database');
    const name = (other as { name: string }).name;
    const sleep = engine === 'postgres' ? 'SELECT pg_sleep(1.5), 1 AS done' : 'SELECT SLEEP(1.5), 1 AS done';
    const running = call('execute_query', { database: name, sql: sleep });
    await expect.poll(() => app.liveActors(), { timeout: 5_000 }).toBeGreaterThan(0);
    // Four more databases (none exists: each opens its pools, then answers not_found) push it out.
    for (let i = 0; i < DATABASES.otherDatabasesPerConnection; i++) {
      expectToolError(await call('list_tables', { database: `sluice_no_database_${i}` }), 'not_found');
    }
    const done = expectModernSuccess(await running);
    expect(done.isError, JSON.stringify(done.content)).toBe(false);
    expect((done.structuredContent as { rows: unknown[][] }).rows[0]?.at(-1)).toBe(1);
  });
});
