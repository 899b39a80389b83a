import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, type EngineFixture, startFixtureApp, type FixtureApp } from '../helpers/engines.js';
import { expectModernSuccess, expectRpcError, expectToolError, expectToolSuccess } from '../helpers/rpcAssertions.js';
import { callTool, mcp, mintToken } from '../helpers/testApp.js';

/**
 * Control characters in what a client sends (issue 27, finding 2). A NUL in `database` once reached
 * PostgreSQL's start-up message, where it ends the value: `database: "<db>\0default_transaction_read_only\0off"`
 * opened a read session with the read-only default switched off. A `database` holding any control
 * character (C0, DEL, C1) is now `invalid_argument` naming it, from every entry point (tools, the
 * schemas resource, completion), before any session is opened. A NUL in statement text is refused by
 * the lexer on every engine, so nothing runs cut short; a NUL in a bound string is a value.
 */

const engines = await availableEngines();

const REFUSED_NUL = 'invalid_argument: database must not contain a control character (it holds U+0000)';

/** Sluice's sessions on the fixture's database, idle ones included, as the server sees them (the fixture's own excluded). */
async function sluiceSessions(fixture: EngineFixture): Promise<number> {
  const probe =
    fixture.engine === 'postgres'
      ? "SELECT count(*)::int FROM pg_stat_activity WHERE application_name = 'sluice' AND datname = current_database()"
      : 'SELECT count(*) FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> CONNECTION_ID()';
  return Number((await fixture.query(probe))[0]?.[0]);
}

describe.each(engines)('control characters on %s', (engine) => {
  skipListed('controlCharacters', engine);
  let fixed: FixtureApp;
  let headers: Record<string, string>;
  const call = (name: string, args: Record<string, unknown>) => callTool(fixed.app, name, { connection_id: 'db', ...args }, { headers });

  beforeAll(async () => {
    fixed = await startFixtureApp(engine, { auth: true });
    headers = mintToken(fixed.app, 'control characters', 'readWrite').headers;
  });
  afterAll(() => fixed?.dispose());

  // First in the file: no session of this app exists yet, so any the call opened would show.
  it('a NUL in database is refused before any session is opened (the start-up message attack)', async (context) => {
    if (engine === 'sqlite') return context.skip('a SQLite file has no start-up message');
    const { fixture } = fixed;
    const injected = engine === 'postgres' ? `${fixture.database}\u0000default_transaction_read_only\u0000off` : `${fixture.database}\u0000mysql_clear_password`;
    const sql = engine === 'postgres' ? 'SHOW default_transaction_read_only' : 'SELECT @@session.tx_read_only';
    expect(await sluiceSessions(fixture)).toBe(0);
    const res = await call('execute_query', { database: injected, sql });
    const result = expectModernSuccess(res);
    // On 6aa4300 PostgreSQL answered `off` here: the injected setting had reached the read session.
    expect(result.isError, `the NUL got through: ${JSON.stringify(result.content)}`).toBe(true);
    expect(expectToolError(res, 'invalid_argument')).toBe(REFUSED_NUL);
    expect(await sluiceSessions(fixture)).toBe(0);
  });

  it.each([
    ['U+0000 (NUL)', '\u0000', '0000'],
    ['U+0001', '\u0001', '0001'],
    ['U+0009 (tab)', '\t', '0009'],
    ['U+000A (line feed)', '\n', '000A'],
    ['U+001F', '\u001f', '001F'],
    ['U+007F (DEL)', '\u007f', '007F'],
    ['U+0085 (NEL, C1)', '\u0085', '0085'],
    ['U+009F (C1)', '\u009f', '009F'],
  ])('a database holding %s is invalid_argument from a tool, the schemas resource and completion', async (_name, character, code) => {
    const database = `${fixed.fixture.database}${character}x`;
    const refused = `invalid_argument: database must not contain a control character (it holds U+${code})`;
    for (const tool of ['list_tables', 'list_schemas', 'execute_query']) {
      const args = tool === 'execute_query' ? { database, sql: 'SELECT 1' } : { database };
      expect(expectToolError(await call(tool, args), 'invalid_argument'), tool).toBe(refused);
    }
    const uri = `sluice://connections/db/schemas?database=${encodeURIComponent(database)}`;
    expect(expectRpcError(await mcp(fixed.app, 'resources/read', { uri }, { headers }), 400, -32602, 1).message).toBe(refused);
    const completion = {
      ref: { type: 'ref/resource', uri: 'sluice://connections/{connection_id}/tables/{table}{?schema}' },
      argument: { name: 'table', value: '' },
      context: { arguments: { connection_id: 'db', database } },
    };
    expect(expectRpcError(await mcp(fixed.app, 'completion/complete', completion, { headers }), 400, -32602, 1).message).toBe(refused);
  });

  it('format characters are not control characters: a database holding U+200B is looked up (and not found)', async () => {
    const text = expectToolError(await call('list_tables', { database: `${fixed.fixture.database}\u200b` }), 'not_found');
    expect(text).not.toMatch(/control character/);
  });

  it('a NUL in statement text is refused by the lexer, so a write never runs cut short at it', async () => {
    for (const sql of ['SELECT 1\u0000', "SELECT 'a\u0000b'", 'SELECT 1 -- \u0000', "UPDATE sluice_canary SET note = 'cut' WHERE id = 1\u0000 AND 1 = 0"]) {
      expect(expectToolError(await call('execute_query', { sql }), 'invalid_argument'), JSON.stringify(sql)).toBe('invalid_argument: the SQL cannot be read: a NUL character');
    }
    expect(await fixed.fixture.query('SELECT note FROM sluice_canary WHERE id = 1')).toEqual([['one']]);
  });

  it('a NUL in a bound string is a value: kept whole, or refused by PostgreSQL as text it cannot store', async () => {
    const sql = engine === 'postgres' ? 'SELECT $1::text AS v' : engine === 'duckdb' ? 'SELECT $1::VARCHAR AS v' : 'SELECT ? AS v';
    const res = await call('execute_query', { sql, params: ['a\u0000b'] });
    if (engine === 'postgres') {
      expect(expectToolError(res, 'query_failed')).toBe('query_failed: invalid byte sequence for encoding "UTF8": 0x00');
    } else {
      expect(expectToolSuccess(res).rows).toEqual([['a\u0000b']]);
    }
  });
});
