import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { AppOptions } from '../../src/app/app.js';
import { type SavedConnection, writeConfig } from '../../src/db/connections/savedConnections.js';
import { holdInstance } from '../../src/db/engines/duckdb/duckdbInstances.js';
import type { Engine } from '../../src/db/database.js';
import { startTestApp, type TestApp } from './testApp.js';

/**
 * The four engines the shared suites run on: SQLite and DuckDB in a temporary file, and a fresh database
 * of its own on the machine's PostgreSQL and MariaDB (or MySQL) servers. In CI a server that is down
 * fails the run; on a developer's machine its suites are skipped with the reason printed.
 * `startFixtureApp` serves a fixture as the connection of a Sluice of its own. What DuckDB leaves out of
 * a shared suite is listed, with the reason, in `duckdbSkips.ts`.
 */

export const POSTGRES_URL = process.env.SLUICE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const MYSQL_URL = process.env.SLUICE_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

/** The fixture every engine gets: two related tables with an index and a view, and the canary the read-only suite watches. */
const FIXTURE = [
  'CREATE TABLE authors (id INTEGER PRIMARY KEY, name VARCHAR(100) NOT NULL, born INTEGER)',
  `CREATE TABLE books (
     id INTEGER PRIMARY KEY,
     author_id INTEGER NOT NULL,
     title VARCHAR(200) NOT NULL,
     price DECIMAL(8, 2),
     FOREIGN KEY (author_id) REFERENCES authors (id) ON DELETE CASCADE
   )`,
  'CREATE INDEX books_author_idx ON books (author_id)',
  'CREATE VIEW book_titles AS SELECT b.title, a.name AS author FROM books b JOIN authors a ON a.id = b.author_id',
  'CREATE TABLE sluice_canary (id INTEGER PRIMARY KEY, note VARCHAR(50))',
  "INSERT INTO authors (id, name, born) VALUES (1, 'Ursula K. Le Guin', 1929), (2, 'Italo Calvino', 1923), (3, 'Octavia E. Butler', 1947)",
  `INSERT INTO books (id, author_id, title, price) VALUES ${Array.from(
    { length: 25 },
    (_, i) => `(${i + 1}, ${(i % 3) + 1}, 'Book ${String(i + 1).padStart(2, '0')}', ${(10 + i * 1.5).toFixed(2)})`,
  ).join(', ')}`,
  "INSERT INTO sluice_canary (id, note) VALUES (1, 'one'), (2, 'two'), (3, 'three')",
];

export const FIXTURE_BOOKS = 25;

export type EngineFixture = {
  engine: Engine;
  /** The saved connection naming this fixture (id `db`). */
  connection: SavedConnection;
  /** The database name (file name on SQLite, the file's name without its extension on DuckDB). */
  database: string;
  /** Runs SQL on the fixture directly, not through Sluice. */
  query(sql: string, params?: unknown[]): Promise<unknown[][]>;
  drop(): Promise<void>;
};

const settings = { id: 'db', name: 'Fixture', externalAccess: 'readWrite', aiPolicy: 'askEachTime' } as const;
const freshName = () => `sluice_e2e_${randomBytes(4).toString('hex')}`;

async function sqliteFixture(): Promise<EngineFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-engine-'));
  const path = join(dir, 'fixture.sqlite');
  const db = new Database(path);
  for (const sql of FIXTURE) db.exec(sql);
  db.close();
  return {
    engine: 'sqlite',
    connection: { ...settings, engine: 'sqlite', path },
    database: 'fixture.sqlite',
    async query(sql, params = []) {
      const direct = new Database(path);
      try {
        const statement = direct.prepare(sql);
        return statement.reader ? (statement.raw(true).all(...params) as unknown[][]) : (statement.run(...params), []);
      } finally {
        direct.close();
      }
    },
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresFixture(): Promise<EngineFixture> {
  const database = freshName();
  const admin = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3_000 });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  for (const sql of FIXTURE) await client.query(sql);
  await client.query('CREATE SEQUENCE sluice_canary_seq');
  return {
    engine: 'postgres',
    connection: { ...settings, engine: 'postgres', url: url.toString() },
    database,
    async query(sql, params = []) {
      return (await client.query({ text: sql, values: params, rowMode: 'array' })).rows;
    },
    async drop() {
      await client.end();
      const cleanup = new pg.Client({ connectionString: POSTGRES_URL });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

async function mysqlFixture(): Promise<EngineFixture> {
  const database = freshName();
  const admin = await mysql.createConnection({ uri: MYSQL_URL, connectTimeout: 3_000 });
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.query(`USE ${database}`);
  for (const sql of FIXTURE) await admin.query(sql);
  const url = new URL(MYSQL_URL);
  url.pathname = `/${database}`;
  return {
    engine: 'mysql',
    connection: { ...settings, engine: 'mysql', url: url.toString() },
    database,
    async query(sql, params = []) {
      const [rows] = await admin.query({ sql, values: params, rowsAsArray: true });
      return Array.isArray(rows) ? (rows as unknown[][]) : [];
    },
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${database}`);
      await admin.end();
    },
  };
}

/**
 * DuckDB keeps no ON DELETE actions on foreign keys; the fixture is otherwise the same. Its statements
 * run on the instance a Sluice in this process has open on the file (one file, one instance:
 * duckdbInstances.ts), so what they write is what Sluice sees.
 */
async function duckdbFixture(): Promise<EngineFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-engine-'));
  const path = join(dir, 'fixture.duckdb');
  const instance = await DuckDBInstance.create(path);
  const setup = await instance.connect();
  for (const sql of FIXTURE) await setup.run(sql.replace(' ON DELETE CASCADE', ''));
  await setup.run('CREATE SEQUENCE sluice_canary_seq');
  setup.closeSync();
  instance.closeSync();
  return {
    engine: 'duckdb',
    connection: { ...settings, engine: 'duckdb', path },
    database: 'fixture',
    async query(sql, params = []) {
      const held = await holdInstance({ path });
      const connection = await held.instance.connect();
      try {
        // Counts as numbers, as the other fixtures give them (and Sluice answers them).
        const rows = (await connection.runAndReadAll(sql, params as never)).getRowsJS() as unknown[][];
        return rows.map((row) => row.map((cell) => (typeof cell === 'bigint' && Number.isSafeInteger(Number(cell)) ? Number(cell) : cell)));
      } finally {
        connection.closeSync();
        held.release();
      }
    },
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const FIXTURES: Record<Engine, () => Promise<EngineFixture>> = {
  sqlite: sqliteFixture,
  postgres: postgresFixture,
  mysql: mysqlFixture,
  duckdb: duckdbFixture,
};

/** The engines that are database servers, reached over the network. */
export type ServerEngine = Exclude<Engine, 'sqlite' | 'duckdb'>;

async function reachable(engine: ServerEngine): Promise<string | undefined> {
  try {
    if (engine === 'postgres') {
      const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3_000 });
      await client.connect();
      await client.end();
    } else if (engine === 'mysql') {
      const connection = await mysql.createConnection({ uri: MYSQL_URL, connectTimeout: 3_000 });
      await connection.end();
    }
    return undefined;
  } catch (error) {
    return (error as Error).message || String(error);
  }
}

/**
 * The engines this run can use. A server that cannot be reached fails the run in CI (`CI` set) and is
 * skipped, with the reason printed, anywhere else.
 */
export async function availableEngines(): Promise<Engine[]> {
  const engines: Engine[] = ['sqlite'];
  for (const engine of ['postgres', 'mysql'] as const) {
    const problem = await reachable(engine);
    if (!problem) engines.push(engine);
    else if (process.env.CI) throw new Error(`CI needs the ${engine} server (${engine === 'postgres' ? POSTGRES_URL : MYSQL_URL}): ${problem}`);
    else console.warn(`skipping the ${engine} suites: ${problem} (start the server, or set SLUICE_TEST_${engine.toUpperCase()}_URL)`);
  }
  return [...engines, 'duckdb'];
}

export function createFixture(engine: Engine): Promise<EngineFixture> {
  return FIXTURES[engine]();
}

export type FixtureApp = { fixture: EngineFixture; app: TestApp; dispose(): Promise<void> };

/** A fresh fixture database on `engine`, saved as the connection `db` of a Sluice of its own. */
export async function startFixtureApp(engine: Engine, options: Partial<AppOptions> = {}): Promise<FixtureApp> {
  const fixture = await createFixture(engine);
  const dataDir = mkdtempSync(join(tmpdir(), `sluice-${engine}-`));
  writeConfig(dataDir, { connections: [fixture.connection] });
  const app = await startTestApp({ ...options, dataDir });
  return {
    fixture,
    app,
    async dispose() {
      await app.dispose();
      await fixture.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The available engines that are database servers (PostgreSQL and MySQL). */
export async function availableServers(): Promise<ServerEngine[]> {
  return (await availableEngines()).filter((engine): engine is ServerEngine => engine === 'postgres' || engine === 'mysql');
}

/** A statement that runs for `seconds` unless stopped. */
export function slowSql(engine: ServerEngine, seconds: number): string {
  return engine === 'postgres' ? `SELECT pg_sleep(${seconds})` : `SELECT SLEEP(${seconds})`;
}

/** How many of Sluice's sessions are busy with a statement, as the server itself sees it, asked from the fixture's own session. */
export async function busySessions(fixture: EngineFixture): Promise<number> {
  const probe =
    fixture.engine === 'postgres'
      ? `SELECT count(*)::int FROM pg_stat_activity
         WHERE application_name = 'sluice' AND datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`
      : `SELECT count(*) FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> CONNECTION_ID() AND COMMAND <> 'Sleep'`;
  return Number((await fixture.query(probe))[0]?.[0]);
}

/**
 * How many of Sluice's sessions hold a read open between pages (behind a `next_cursor`), as the server
 * sees it. PostgreSQL: inside a transaction with no statement running. MySQL/MariaDB: inside a read-only
 * InnoDB transaction; its process list shows such a session as Sleep or, while its paused statement
 * still has rows to send, as Query, so the transaction table is asked, which shows it either way.
 * Undefined where no server can show it (DuckDB runs in Sluice's process, SQLite in its query processes).
 */
export async function heldSessions(fixture: EngineFixture): Promise<number | undefined> {
  if (fixture.engine === 'duckdb' || fixture.engine === 'sqlite') return undefined;
  return Number((await transactionsProbe(fixture, HELD_PROBES[fixture.engine]))[0]?.[0]);
}

/**
 * `sql`, which reads MySQL's information_schema.INNODB_TRX, answered fresh. InnoDB fills that table from
 * a cache it refreshes only when nobody on the server has read it for 0.1 s: test files polling it at
 * once kept each other's answers stale for seconds. So every probe of the suite takes one named lock,
 * waits 0.12 s, then reads. (PostgreSQL's pg_stat_activity is read as it is.)
 */
async function transactionsProbe(fixture: EngineFixture, sql: string): Promise<unknown[][]> {
  if (fixture.engine !== 'mysql') return fixture.query(sql);
  await fixture.query(`SELECT GET_LOCK('sluice_test_innodb_trx', 60)`);
  try {
    await fixture.query('DO SLEEP(0.12)');
    return await fixture.query(sql);
  } finally {
    await fixture.query(`DO RELEASE_LOCK('sluice_test_innodb_trx')`);
  }
}

const HELD_PROBES: Record<ServerEngine, string> = {
  postgres: `SELECT count(*)::int FROM pg_stat_activity
    WHERE application_name = 'sluice' AND datname = current_database() AND pid <> pg_backend_pid() AND state = 'idle in transaction'`,
  mysql: `SELECT count(*) FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id
    WHERE p.DB = DATABASE() AND p.ID <> CONNECTION_ID() AND t.trx_is_read_only = 1`,
};

/**
 * How many of Sluice's sessions run a statement other than a held read's, asked from the fixture's own
 * session. A held read is idle on purpose; `heldSessions` counts it, and a caller checks that count
 * against the reads Sluice holds, so that nothing else hides among them.
 */
export async function busyBesideHeld(fixture: EngineFixture): Promise<number> {
  const probe =
    fixture.engine === 'postgres'
      ? `SELECT count(*)::int FROM pg_stat_activity
         WHERE application_name = 'sluice' AND datname = current_database() AND pid <> pg_backend_pid() AND state NOT IN ('idle', 'idle in transaction')`
      : `SELECT count(*) FROM information_schema.PROCESSLIST p WHERE p.DB = DATABASE() AND p.ID <> CONNECTION_ID() AND p.COMMAND <> 'Sleep'
         AND p.ID NOT IN (SELECT t.trx_mysql_thread_id FROM information_schema.INNODB_TRX t WHERE t.trx_is_read_only = 1)`;
  return Number((await transactionsProbe(fixture, probe))[0]?.[0]);
}

/**
 * How many of Sluice's sessions run `slowSql(engine, seconds)`, as the server itself sees it, asked from
 * the fixture's own session (which the probe excludes). PostgreSQL shows a read as the cursor's
 * `FETCH …`, so its backend is found by the sleep it is in; MariaDB's process list shows the text
 * (split in the probe so that it never matches itself).
 */
export async function runningSleeps(fixture: EngineFixture, seconds: number): Promise<number> {
  const probe =
    fixture.engine === 'postgres'
      ? `SELECT count(*)::int FROM pg_stat_activity
         WHERE application_name = 'sluice' AND datname = current_database() AND pid <> pg_backend_pid()
           AND state = 'active' AND wait_event = 'PgSleep'`
      : `SELECT count(*) FROM information_schema.PROCESSLIST
         WHERE DB = DATABASE() AND ID <> CONNECTION_ID() AND INFO LIKE CONCAT('%SLE', 'EP(${seconds})%')`;
  return Number((await fixture.query(probe))[0]?.[0]);
}
