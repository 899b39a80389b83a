import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionCatalog } from '../../src/db/connections/connectionCatalog.js';
import type { Database } from '../../src/db/database.js';
import type { Engine } from '../../src/db/database.js';
import { DriverFailure, type FailureKind } from '../../src/db/driverFailure.js';
import { databaseSnapshot } from '../helpers/databaseSnapshot.js';
import { availableEngines, createFixture, type EngineFixture } from '../helpers/engines.js';

/**
 * Layer (b) of the read-only guarantee on its own: the read sessions of each driver refuse to write,
 * whatever they are sent. Every statement here writes and goes straight to `Database.read`, past the
 * classifier and the scopes; the engine must refuse it (a `DriverFailure`, `not_read_only` where the
 * engine says "read-only transaction"), and the fixture must be exactly as it was, read from a
 * connection of its own. A statement sent as a read cannot leave its session writable for the next
 * one either. Then the read sessions still answer, and the write sessions do write (so a driver that
 * swapped its two pools cannot pass).
 */

const engines = await availableEngines();

type Case = {
  /** The statement, sent as a read. */
  sql: string;
  /** Values bound to it (which takes the prepared-statement path on MySQL). */
  params?: unknown[];
  /** How the driver must fail it: `not_read_only` when the engine refused a write in a read-only transaction. */
  kind: FailureKind;
  /** What the engine's message says, to be sure the refusal is the one expected and not some other error. */
  message: RegExp;
};

/** PostgreSQL: `cannot execute <command> in a read-only transaction` (SQLSTATE 25006). */
const pgReadOnly = (command: string): Pick<Case, 'kind' | 'message'> => ({
  kind: 'not_read_only',
  message: new RegExp(`cannot execute ${command} in a read-only transaction`, 'i'),
});
/** MySQL and MariaDB: error 1792 (ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION). */
const mysqlReadOnly: Pick<Case, 'kind' | 'message'> = {
  kind: 'not_read_only',
  message: /cannot execute statement in a read only transaction/i,
};
/** DuckDB: a read runs in `BEGIN TRANSACTION READ ONLY`, which refuses any write to the database. */
const duckdbReadOnly: Pick<Case, 'kind' | 'message'> = { kind: 'not_read_only', message: /transaction is launched in read-only mode/i };
/** DuckDB runs one statement as written: text of more is refused before any runs. */
const duckdbOneStatement: Pick<Case, 'kind' | 'message'> = { kind: 'invalid_argument', message: /^send exactly one statement per call$/ };
/** SQLite: the query process refuses a statement SQLite does not call read-only before running it. */
const sqliteReadOnly: Pick<Case, 'kind' | 'message'> = { kind: 'not_read_only', message: /not a read/i };

const CASES: Record<Engine, Case[]> = {
  sqlite: [
    { sql: "INSERT INTO sluice_canary (id, note) VALUES (90, 'x')", ...sqliteReadOnly },
    { sql: 'INSERT INTO sluice_canary (id, note) VALUES (?, ?)', params: [91, 'bound'], ...sqliteReadOnly },
    { sql: "UPDATE sluice_canary SET note = 'x'", ...sqliteReadOnly },
    { sql: 'DELETE FROM sluice_canary', ...sqliteReadOnly },
    { sql: 'CREATE TABLE sluice_intruder (id INTEGER)', ...sqliteReadOnly },
    { sql: 'DROP TABLE sluice_canary', ...sqliteReadOnly },
    { sql: 'CREATE TEMP TABLE sluice_intruder (id INTEGER)', ...sqliteReadOnly },
    { sql: "WITH x AS (SELECT 1 AS id) DELETE FROM sluice_canary WHERE id IN (SELECT id FROM x)", ...sqliteReadOnly },
    { sql: 'PRAGMA user_version = 7', ...sqliteReadOnly },
  ],
  postgres: [
    { sql: "INSERT INTO sluice_canary (id, note) VALUES (90, 'x')", ...pgReadOnly('INSERT') },
    { sql: 'INSERT INTO sluice_canary (id, note) VALUES ($1, $2)', params: [91, 'bound'], ...pgReadOnly('INSERT') },
    { sql: "UPDATE sluice_canary SET note = 'x'", ...pgReadOnly('UPDATE') },
    { sql: 'DELETE FROM sluice_canary', ...pgReadOnly('DELETE') },
    { sql: 'TRUNCATE sluice_canary', ...pgReadOnly('TRUNCATE TABLE') },
    { sql: 'CREATE TABLE sluice_intruder (id integer)', ...pgReadOnly('CREATE TABLE') },
    { sql: 'DROP TABLE sluice_canary', ...pgReadOnly('DROP TABLE') },
    {
      // Sent through a cursor, which PostgreSQL refuses to declare over a data-modifying CTE at all.
      sql: 'WITH d AS (DELETE FROM sluice_canary RETURNING *) SELECT * FROM d',
      kind: 'query_failed',
      message: /DECLARE CURSOR must not contain data-modifying statements in WITH/i,
    },
    {
      sql: 'SELECT * INTO sluice_canary_copy FROM sluice_canary',
      kind: 'query_failed',
      message: /SELECT \.\.\. INTO is not allowed here/i,
    },
    { sql: "SELECT nextval('sluice_canary_seq')", ...pgReadOnly('nextval\\(\\)') },
    { sql: "SELECT setval('sluice_canary_seq', 42)", ...pgReadOnly('setval\\(\\)') },
    { sql: 'SELECT sluice_canary_insert()', ...pgReadOnly('INSERT') },
  ],
  mysql: [
    { sql: "INSERT INTO sluice_canary (id, note) VALUES (90, 'x')", ...mysqlReadOnly },
    { sql: 'INSERT INTO sluice_canary (id, note) VALUES (?, ?)', params: [91, 'bound'], ...mysqlReadOnly },
    { sql: "UPDATE sluice_canary SET note = 'x'", ...mysqlReadOnly },
    { sql: 'DELETE FROM sluice_canary', ...mysqlReadOnly },
    // DDL commits implicitly: only the session's read-only default stops these.
    { sql: 'CREATE TABLE sluice_intruder (id INTEGER)', ...mysqlReadOnly },
    { sql: 'DROP TABLE sluice_canary', ...mysqlReadOnly },
    { sql: 'TRUNCATE TABLE sluice_canary', ...mysqlReadOnly },
    { sql: 'ALTER TABLE sluice_canary ADD COLUMN intruder INTEGER', ...mysqlReadOnly },
    { sql: 'RENAME TABLE sluice_canary TO sluice_renamed', ...mysqlReadOnly },
    { sql: 'CREATE TEMPORARY TABLE sluice_intruder (id INTEGER)', ...mysqlReadOnly },
  ],
  duckdb: [
    { sql: "INSERT INTO sluice_canary (id, note) VALUES (90, 'x')", ...duckdbReadOnly },
    { sql: 'INSERT INTO sluice_canary (id, note) VALUES ($1, $2)', params: [91, 'bound'], ...duckdbReadOnly },
    { sql: "UPDATE sluice_canary SET note = 'x'", ...duckdbReadOnly },
    { sql: 'DELETE FROM sluice_canary', ...duckdbReadOnly },
    { sql: 'TRUNCATE sluice_canary', ...duckdbReadOnly },
    { sql: 'CREATE TABLE sluice_intruder (id INTEGER)', ...duckdbReadOnly },
    { sql: 'DROP TABLE sluice_canary', ...duckdbReadOnly },
    { sql: 'ALTER TABLE sluice_canary ADD COLUMN intruder INTEGER', ...duckdbReadOnly },
    { sql: 'CREATE MACRO sluice_intruder(x) AS x', ...duckdbReadOnly },
    { sql: "WITH x AS (SELECT 1 AS id) DELETE FROM sluice_canary WHERE id IN (SELECT id FROM x)", ...duckdbReadOnly },
    { sql: "SELECT nextval('sluice_canary_seq')", ...duckdbReadOnly },
    // Ending the read-only transaction first: DuckDB's own stream runs each statement before the last.
    { sql: "COMMIT; INSERT INTO sluice_canary (id, note) VALUES (92, 'after commit')", ...duckdbOneStatement },
    { sql: 'ROLLBACK; CREATE TABLE sluice_intruder (id INTEGER)', ...duckdbOneStatement },
    { sql: 'COMMIT; CREATE TABLE sluice_intruder (id INTEGER); SELECT 1', params: [], ...duckdbOneStatement },
  ],
};

/**
 * Statements that would make a session writable for the transactions after this one. Sent as reads,
 * whatever they answer, they must leave the read sessions read only for the next statement.
 */
const SESSION_FLIPS: Record<Engine, string[]> = {
  sqlite: ['PRAGMA query_only = 0', 'PRAGMA query_only(0)'],
  postgres: [
    'SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE',
    'SET default_transaction_read_only = off',
    "SELECT set_config('default_transaction_read_only', 'off', false)",
  ],
  mysql: ['SET SESSION TRANSACTION READ WRITE', 'SET SESSION tx_read_only = 0'],
  // Every DuckDB statement has a connection and a transaction of its own: these end the read's own.
  duckdb: ['COMMIT', 'ROLLBACK', 'ABORT'],
};
const DDL_AFTER_FLIP = 'CREATE TABLE sluice_intruder (id INTEGER)';

const options = () => ({ maxRows: 100, timeoutMs: 10_000, signal: new AbortController().signal });

describe.each(engines)('read sessions on %s', (engine) => {
  let fixture: EngineFixture;
  let catalog: ConnectionCatalog;
  let db: Database;
  let initial: Awaited<ReturnType<typeof databaseSnapshot>>;

  beforeAll(async () => {
    fixture = await createFixture(engine);
    if (engine === 'postgres') {
      // VOLATILE: a SELECT that calls it writes, which no classifier can see from the call.
      await fixture.query(
        `CREATE FUNCTION sluice_canary_insert() RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
         BEGIN INSERT INTO sluice_canary (id, note) VALUES (99, 'from a function'); RETURN 99; END $$`,
      );
    }
    catalog = new ConnectionCatalog([fixture.connection]);
    db = catalog.database(fixture.connection);
    initial = await databaseSnapshot(fixture);
  });
  afterAll(async () => {
    await catalog?.close();
    await fixture?.drop();
  });

  it.each(CASES[engine].map((c) => [c.sql, c] as const))(
    'refuses %s sent as a read',
    async (_, { sql, params, kind, message }) => {
      const failure = await db.read(sql, { ...options(), params }).then(
        (result) => expect.unreachable(`the read session ran it: ${JSON.stringify(result)}`),
        (error: unknown) => error,
      );
      expect(failure, String(failure)).toBeInstanceOf(DriverFailure);
      expect({ kind: (failure as DriverFailure).kind, message: (failure as DriverFailure).message }).toEqual({
        kind,
        message: expect.stringMatching(message),
      });
      expect(await databaseSnapshot(fixture), `the fixture changed after ${sql}`).toEqual(initial);
    },
  );

  it.each(SESSION_FLIPS[engine])('a read cannot leave the read sessions writable: %s, then CREATE TABLE', async (flip) => {
    try {
      // What the flip itself answers does not matter here; the next statement on that session does.
      const flipped = await db.read(flip, options()).then(
        () => 'it ran',
        (error: unknown) => (error instanceof DriverFailure ? `refused: ${error.kind}` : String(error)),
      );
      const failure = await db.read(DDL_AFTER_FLIP, options()).then(
        (result) => expect.unreachable(`after ${flip} (${flipped}), the read session ran ${DDL_AFTER_FLIP}: ${JSON.stringify(result)}`),
        (error: unknown) => error,
      );
      expect(failure, `after ${flip} (${flipped}): ${String(failure)}`).toBeInstanceOf(DriverFailure);
      expect((failure as DriverFailure).kind, `after ${flip} (${flipped}): ${String(failure)}`).toBe('not_read_only');
      expect(await databaseSnapshot(fixture), `the fixture changed after ${flip}; ${DDL_AFTER_FLIP}`).toEqual(initial);
    } finally {
      // Whatever happened, the next test starts from the fixture as it was and from fresh sessions.
      await fixture.query('DROP TABLE IF EXISTS sluice_intruder');
      await catalog.close();
      catalog = new ConnectionCatalog([fixture.connection]);
      db = catalog.database(fixture.connection);
    }
  });

  it('the read sessions still answer a plain SELECT afterwards', async () => {
    const result = await db.read('SELECT id, note FROM sluice_canary ORDER BY id', options());
    expect(result).toMatchObject({
      rows: [
        [1, 'one'],
        [2, 'two'],
        [3, 'three'],
      ],
      truncated: false,
      rowsAffected: 0,
    });
    expect(result.columns.map((c) => c.name)).toEqual(['id', 'note']);
  });

  it('the write sessions do write (reads and writes are not swapped), then the row is removed', async () => {
    const inserted = await db.write("INSERT INTO sluice_canary (id, note) VALUES (4, 'four')", options());
    expect(inserted.rowsAffected).toBe(1);
    try {
      expect(await fixture.query('SELECT id, note FROM sluice_canary WHERE id = 4')).toEqual([[4, 'four']]);
      expect((await db.read('SELECT note FROM sluice_canary WHERE id = 4', options())).rows).toEqual([['four']]);
    } finally {
      await fixture.query('DELETE FROM sluice_canary WHERE id = 4');
    }
    expect(await databaseSnapshot(fixture)).toEqual(initial);
  });
});
