import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCEPTED, CONSENT_KEY, ELICITATION_META, expectInputRequired, repeatToolCall } from '../helpers/consentRoundTrip.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, startFixtureApp } from '../helpers/engines.js';
import { expectToolError, expectToolSuccess } from '../helpers/rpcAssertions.js';
import { callTool, mintToken, type RawResponse, type TestApp } from '../helpers/testApp.js';

/**
 * A pooled session carries nothing from one token to the next (issue 27, finding 1; decisions.md,
 * "Sessions, slots and answers"). Token A leaves state on a session (a variable, a seed, the last
 * insert id, a temporary table, a lock, a pragma), by a read, by the effect preview of a write it then
 * declines, or by a write it approves; A itself reads it back (the same session, the attack works);
 * then token B, whose statements run in turn on that session (the pools hand out the session freed
 * last), must not see it. What the classifier refuses outright (SET, PREPARE, LISTEN, set_config, …)
 * never reaches a session.
 */

const engines = await availableEngines();

type Who = { headers: Record<string, string> };

function clientOf(app: TestApp, connectionId: string) {
  const args = (sql: string) => ({ connection_id: connectionId, sql });
  const query = (who: Who, sql: string) => callTool(app, 'execute_query', args(sql), { headers: who.headers });
  /** The statement's rows, as one token reads them. */
  const rows = async (who: Who, sql: string) => expectToolSuccess(await query(who, sql)).rows as unknown[][];
  /** Its first value. */
  const cell = async (who: Who, sql: string) => (await rows(who, sql))[0]?.[0];
  /** A write as a client that can be asked for consent sends it: input_required, unless it fails before. */
  const ask = (who: Who, sql: string) => callTool(app, 'execute_query', args(sql), { headers: who.headers, extraMeta: ELICITATION_META });
  const answer = async (who: Who, sql: string, response: unknown): Promise<RawResponse> => {
    const asked = await ask(who, sql);
    const requestState = expectInputRequired(asked, sql);
    return repeatToolCall(app, 'execute_query', args(sql), { requestState, inputResponses: { [CONSENT_KEY]: response } }, { headers: who.headers, extraMeta: ELICITATION_META });
  };
  /** A write the token's user approves: the response, and its structured result when it succeeded. */
  const approve = (who: Who, sql: string) => answer(who, sql, ACCEPTED);
  const approved = async (who: Who, sql: string) => expectToolSuccess(await approve(who, sql));
  /** A write the token's user is asked about (its effect previewed) and declines. */
  const declined = async (who: Who, sql: string) => expectToolError(await answer(who, sql, { action: 'decline' }), 'denied');
  return { query, rows, cell, ask, approve, approved, declined };
}

describe.each(engines)('sessions on %s carry nothing from one token to another', (engine) => {
  skipListed('sessionIsolation', engine);
  let app: TestApp;
  let dispose: () => Promise<void>;
  let a: Who;
  let b: Who;
  let db: ReturnType<typeof clientOf>;

  beforeAll(async () => {
    ({ app, dispose } = await startFixtureApp(engine, { auth: true }));
    a = mintToken(app, 'alice', 'fullAccess');
    b = mintToken(app, 'bob', 'fullAccess');
    db = clientOf(app, 'db');
  });
  afterAll(async () => {
    await dispose?.();
  });

  describe.runIf(engine === 'postgres')('PostgreSQL', () => {
    /** What random() gives right after setseed(0.42), read by A on its own session. */
    const seededByA = async () => {
      await db.rows(a, 'SELECT setseed(0.42)');
      return db.cell(a, 'SELECT random()');
    };

    it('setseed in a read: A then reads the seeded random(); B does not', async () => {
      const predicted = await seededByA();
      expect(await seededByA()).toBe(predicted);
      await db.rows(a, 'SELECT setseed(0.42)');
      expect(await db.cell(b, 'SELECT random()')).not.toBe(predicted);
      // The reset keeps what the read session was opened with.
      expect(await db.rows(b, "SELECT current_setting('default_transaction_read_only'), current_setting('application_name')")).toEqual([['on', 'sluice']]);
    });

    it('setseed in the effect preview of a declined write: B does not get the seeded random()', async () => {
      const predicted = await seededByA();
      await db.declined(a, "UPDATE books SET price = price WHERE setseed(0.42)::text = ''");
      expect(await db.cell(b, 'SELECT random()')).not.toBe(predicted);
    });

    it('an advisory lock taken by an approved write is not B’s to release', async () => {
      expect((await db.approved(a, 'SELECT pg_advisory_lock(4242)')).rows).toEqual([['']]);
      expect((await db.approved(b, 'SELECT pg_advisory_unlock(4242)')).rows).toEqual([[false]]);
    });

    it('a temporary table made by an approved write is not B’s', async () => {
      await db.approved(a, "CREATE TEMP TABLE secret_tmp AS SELECT 'secret' AS v");
      expect((await db.approved(a, "UPDATE secret_tmp SET v = v WHERE v IS NOT NULL RETURNING v")).rows).toEqual([['secret']]);
      // Checked on a write session before anyone is asked: there, once reset for B, the table does not exist.
      const text = expectToolError(await db.ask(b, 'UPDATE secret_tmp SET v = v WHERE v IS NOT NULL RETURNING v'), 'query_failed');
      expect(text).toMatch(/relation "secret_tmp" does not exist/);
    });
  });

  describe.runIf(engine === 'mysql')('MySQL and MariaDB', () => {
    it('a user variable set by a read (:=, SELECT … INTO): A reads it back; B reads NULL', async () => {
      await db.rows(a, "SELECT @sluice_v := 'secret'");
      await db.rows(a, "SELECT 'also secret' INTO @sluice_w");
      expect(await db.rows(a, 'SELECT @sluice_v, @sluice_w')).toEqual([['secret', 'also secret']]);
      expect(await db.rows(b, 'SELECT @sluice_v, @sluice_w')).toEqual([[null, null]]);
    });

    it('LAST_INSERT_ID(n) in a read: A reads n back; B reads 0', async () => {
      await db.rows(a, 'SELECT LAST_INSERT_ID(4242)');
      expect(await db.cell(a, 'SELECT LAST_INSERT_ID()')).toBe(4242);
      expect(await db.cell(b, 'SELECT LAST_INSERT_ID()')).toBe(0);
    });

    it('LAST_INSERT_ID(n) in the effect preview of a declined write: B reads 0', async () => {
      await db.declined(a, 'UPDATE books SET price = price WHERE LAST_INSERT_ID(4343) > 0');
      expect(await db.cell(b, 'SELECT LAST_INSERT_ID()')).toBe(0);
    });

    it('a lock taken by an approved GET_LOCK is not B’s to release', async () => {
      expect((await db.approved(a, "SELECT GET_LOCK('sluice_lock', 0)")).rows).toEqual([[1]]);
      expect((await db.approved(b, "SELECT RELEASE_LOCK('sluice_lock')")).rows).toEqual([[null]]);
    });

    it('a temporary table made by an approved write is not B’s', async () => {
      await db.approved(a, "CREATE TEMPORARY TABLE secret_tmp AS SELECT 'secret' AS v");
      expect((await db.approved(a, "UPDATE secret_tmp SET v = 'seen' WHERE v IS NOT NULL")).rows_affected).toBe(1);
      // Checked on a write session before anyone is asked: there the table does not exist.
      const text = expectToolError(await db.ask(b, "UPDATE secret_tmp SET v = 'seen' WHERE v IS NOT NULL"), 'query_failed');
      expect(text).toMatch(/secret_tmp' doesn't exist/);
    });
  });

  describe.runIf(engine === 'sqlite')('SQLite (one pool of query processes for every token)', () => {
    it('a temporary table made by an approved write: A reads it; B finds no such table', async () => {
      await db.approved(a, "CREATE TEMP TABLE secret_tmp AS SELECT 'secret' AS v");
      expect(await db.rows(a, 'SELECT v FROM temp.secret_tmp')).toEqual([['secret']]);
      const text = expectToolError(await db.query(b, 'SELECT v FROM temp.secret_tmp'), 'query_failed');
      expect(text).toMatch(/no such table: temp.secret_tmp/);
    });

    it('last_insert_rowid() and changes() after A’s approved insert: A reads them; B reads 0', async () => {
      await db.approved(a, "INSERT INTO sluice_canary (id, note) VALUES (4242, 'secret')");
      expect(await db.rows(a, 'SELECT last_insert_rowid(), changes()')).toEqual([[4242, 1]]);
      expect(await db.rows(b, 'SELECT last_insert_rowid(), changes()')).toEqual([[0, 0]]);
    });

    it('a pragma set by an approved write: A reads it; B reads the connection’s own', async () => {
      await db.approved(a, 'PRAGMA foreign_keys = OFF');
      expect(await db.cell(a, 'SELECT foreign_keys FROM pragma_foreign_keys')).toBe(0);
      expect(await db.cell(b, 'SELECT foreign_keys FROM pragma_foreign_keys')).toBe(1);
    });
  });

  describe.runIf(engine === 'duckdb')('DuckDB (a connection of its own per statement)', () => {
    it('setseed in a read, and in the effect preview of a declined write: B does not get the seeded random()', async () => {
      const instance = await DuckDBInstance.create(':memory:');
      const own = await instance.connect();
      await own.run('SELECT setseed(0.42)');
      const predicted = (await own.runAndReadAll('SELECT random()')).getRows()[0]?.[0];
      instance.closeSync();
      await db.rows(a, 'SELECT setseed(0.42)');
      expect(await db.cell(b, 'SELECT random()')).not.toBe(predicted);
      await db.declined(a, 'UPDATE books SET price = price WHERE setseed(0.42) IS NULL');
      expect(await db.cell(b, 'SELECT random()')).not.toBe(predicted);
    });

    it('a temporary table made by an approved write is not B’s', async () => {
      await db.approved(a, "CREATE TEMP TABLE secret_tmp AS SELECT 'secret' AS v");
      const text = expectToolError(await db.query(b, 'SELECT v FROM temp.secret_tmp'), 'query_failed');
      expect(text).toMatch(/secret_tmp does not exist/);
    });
  });

  /** What the classifier refuses as session state never reaches a session (`unsupported`). */
  const REFUSED: Record<typeof engine, string[]> = {
    postgres: ["SELECT set_config('search_path', 'elsewhere', false)", 'SET search_path = elsewhere', 'PREPARE p AS SELECT 1', 'LISTEN sluice', 'DECLARE c CURSOR WITH HOLD FOR SELECT 1', 'DISCARD ALL'],
    mysql: ["SET @sluice_v = 'secret'", "SET SESSION sql_mode = 'ANSI_QUOTES'", "PREPARE p FROM 'SELECT 1'", 'LOCK TABLES books READ', 'USE mysql'],
    sqlite: [],
    duckdb: ["SET VARIABLE sluice_v = 'secret'", 'SET threads = 1', 'RESET threads', 'USE memory', 'PREPARE p AS SELECT 1', 'EXECUTE p'],
  };
  it.runIf(REFUSED[engine].length > 0)('SET, PREPARE, LISTEN, set_config and their kin are refused before any session', async () => {
    for (const sql of REFUSED[engine]) {
      expect(expectToolError(await db.query(a, sql), 'unsupported'), sql).toMatch(/session state is managed by Sluice/);
    }
  });
});
