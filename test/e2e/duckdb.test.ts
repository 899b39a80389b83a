import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProtocolError } from '../../src/core/errors.js';
import { fromDriverError } from '../../src/capabilities/dbErrors.js';
import { DuckdbDatabase } from '../../src/db/engines/duckdb/duckdbDatabase.js';
import { writeConfig, type SavedConnection } from '../../src/db/connections/savedConnections.js';
import { systemClock } from '../../src/core/clock.js';
import { ACCEPTED, CONSENT_KEY, ELICITATION_META, expectInputRequired, repeatToolCall } from '../helpers/consentRoundTrip.js';
import { expectModernSuccess, expectToolError } from '../helpers/rpcAssertions.js';
import { callTool, mintToken, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * DuckDB, the fourth engine (issue 20): every tool on a DuckDB file through real HTTP, reads on a
 * read-only transaction after the classifier, writes after consent, deadlines and cancellation that
 * interrupt the statement, file reads only inside the connection's files directory, and `:memory:`.
 */

const FIXTURE = [
  'CREATE TABLE authors (id INTEGER PRIMARY KEY, name VARCHAR(100) NOT NULL, born INTEGER)',
  `CREATE TABLE books (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES authors (id), title VARCHAR(200) NOT NULL,
     price DECIMAL(8, 2), isbn VARCHAR UNIQUE, cover BLOB, sold BIGINT)`,
  'CREATE INDEX books_author_idx ON books (author_id)',
  'CREATE VIEW book_titles AS SELECT b.title, a.name AS author FROM books b JOIN authors a ON a.id = b.author_id',
  "INSERT INTO authors VALUES (1, 'Ursula K. Le Guin', 1929), (2, 'Italo Calvino', 1923), (3, 'Octavia E. Butler', 1947)",
  `INSERT INTO books SELECT i, i % 3 + 1, 'Book ' || lpad(i::VARCHAR, 2, '0'), 10 + i * 1.5, NULL, NULL, NULL FROM range(1, 26) t(i)`,
  "UPDATE books SET cover = '\\xCA\\xFE'::BLOB, sold = 9007199254740993 WHERE id = 1",
];
/** Runs for minutes unless interrupted. */
const SLOW_SQL = 'SELECT count(*) FROM range(1000000000) a, range(1000000000) b';

const settings = { name: 'Fixture', externalAccess: 'readWrite', aiPolicy: 'askEachTime' } as const;

let root: string;
let filesDir: string;
let app: TestApp;
let headers: Record<string, string>;

const tool = (name: string, args: Record<string, unknown>, id = 'db') =>
  callTool(app, name, name === 'list_connections' ? args : { connection_id: id, ...args }, { headers });
const structured = async (name: string, args: Record<string, unknown>, id = 'db') => {
  const result = expectModernSuccess(await tool(name, args, id));
  expect(result.isError, JSON.stringify(result.content)).toBe(false);
  return result.structuredContent;
};
const consented = async (name: string, args: Record<string, unknown>, requestHeaders = headers) => {
  const first = await callTool(app, name, args, { headers: requestHeaders, extraMeta: ELICITATION_META });
  const state = expectInputRequired(first, args.sql as string);
  const done = await repeatToolCall(app, name, args, { requestState: state, inputResponses: { [CONSENT_KEY]: ACCEPTED } }, { headers: requestHeaders, extraMeta: ELICITATION_META });
  return expectModernSuccess(done).structuredContent;
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'sluice-duckdb-'));
  filesDir = join(root, 'files');
  mkdirSync(filesDir);
  mkdirSync(join(root, 'elsewhere'));
  writeFileSync(join(filesDir, 'sales.csv'), 'region,amount\nnorth,10\nsouth,32\n');
  writeFileSync(join(root, 'elsewhere', 'secret.csv'), 'key\nhunter2\n');
  const path = join(root, 'fixture.duckdb');
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  for (const sql of FIXTURE) await connection.run(sql);
  await connection.run(`COPY (SELECT * FROM range(3) t(n)) TO '${join(filesDir, 'numbers.parquet')}' (FORMAT parquet)`);
  connection.closeSync();
  instance.closeSync();
  const connections: SavedConnection[] = [
    { ...settings, id: 'db', engine: 'duckdb', path, filesDir },
    { ...settings, id: 'scratch', name: 'Scratch', engine: 'duckdb', path: ':memory:' },
  ];
  writeConfig(root, { connections });
  app = await startTestApp({ dataDir: root, auth: true });
  headers = mintToken(app, 'duckdb suite').headers;
});
afterAll(async () => {
  await app?.dispose();
  rmSync(root, { recursive: true, force: true });
});

describe('DuckDB through every tool', () => {
  it('list_connections names the engine', async () => {
    const { connections } = await structured('list_connections', {});
    expect(connections.map((c: { id: string; engine: string }) => [c.id, c.engine])).toEqual([
      ['db', 'duckdb'],
      ['scratch', 'duckdb'],
    ]);
  });

  it('list_databases and list_schemas', async () => {
    expect((await structured('list_databases', {})).databases).toEqual(['fixture']);
    expect((await structured('list_schemas', {})).schemas).toEqual(['main']);
  });

  it('list_tables lists tables and views', async () => {
    const { tables } = await structured('list_tables', {});
    expect(tables.map((t: { name: string; type: string }) => [t.name, t.type])).toEqual([
      ['authors', 'table'],
      ['book_titles', 'view'],
      ['books', 'table'],
    ]);
  });

  it('describe_table gives columns, primary key, indexes and foreign keys', async () => {
    const books = await structured('describe_table', { table: 'BOOKS' });
    expect(books.name).toBe('books');
    expect(books.columns.map((c: { name: string; type: string }) => [c.name, c.type])).toEqual([
      ['id', 'INTEGER'],
      ['author_id', 'INTEGER'],
      ['title', 'VARCHAR'],
      ['price', 'DECIMAL(8,2)'],
      ['isbn', 'VARCHAR'],
      ['cover', 'BLOB'],
      ['sold', 'BIGINT'],
    ]);
    expect(books.columns[2]).toEqual({ name: 'title', type: 'VARCHAR', nullable: false, default: null, primary_key: false });
    expect(books.primary_key).toEqual(['id']);
    expect(books.indexes).toEqual([
      { name: 'books_isbn_key', columns: ['isbn'], unique: true },
      { name: 'books_author_idx', columns: ['author_id'], unique: false },
    ]);
    expect(books.foreign_keys).toEqual([
      { columns: ['author_id'], references_schema: 'main', references_table: 'authors', references_columns: ['id'], on_update: 'NO ACTION', on_delete: 'NO ACTION' },
    ]);
  });

  it('get_table_ddl returns the table with its index, and a view', async () => {
    const { ddl } = await structured('get_table_ddl', { table: 'books' });
    expect(ddl).toMatch(/^CREATE TABLE books\(id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL, /);
    expect(ddl).toContain('FOREIGN KEY (author_id) REFERENCES authors(id)');
    expect(ddl.endsWith('\n\nCREATE INDEX books_author_idx ON books(author_id);')).toBe(true);
    expect((await structured('get_table_ddl', { table: 'book_titles' })).ddl).toMatch(/^CREATE VIEW book_titles AS SELECT /);
  });

  it('search_schema finds columns by name', async () => {
    expect(JSON.stringify(await structured('search_schema', { query: 'author' }))).toContain('author_id');
  });

  it('execute_query binds parameters; big integers, decimals and blobs come back as JSON', async () => {
    const out = await structured('execute_query', {
      sql: 'SELECT id, title, price, cover, sold FROM books WHERE author_id = $1 AND id < $2 ORDER BY id',
      params: [2, 5],
    });
    expect(out).toMatchObject({ statement_kind: 'read', is_truncated: false });
    expect(out.rows).toEqual([
      [1, 'Book 01', '11.50', '0xcafe', '9007199254740993'],
      [4, 'Book 04', '16.00', null, null],
    ]);
  });

  it('caps rows with is_truncated', async () => {
    const out = await structured('execute_query', { sql: 'FROM books SELECT id ORDER BY id', max_rows: 10 });
    expect(out).toMatchObject({ row_count: 10, is_truncated: true });
    expect(out.rows).toEqual(Array.from({ length: 10 }, (_, i) => [i + 1]));
  });

  it('explain_query returns a plan', async () => {
    const out = await structured('explain_query', { sql: 'SELECT * FROM books WHERE author_id = 1' });
    expect(out.statement_kind).toBe('read');
    expect(JSON.stringify(out.plan)).toContain('books');
  });

  it('count_rows counts exactly, and estimates', async () => {
    expect(await structured('count_rows', { table: 'books', exact: true })).toMatchObject({ count: 25, exact: true });
    expect(await structured('count_rows', { table: 'books' })).toMatchObject({ count: 25, exact: false });
  });

  it('browse_table filters, sorts and pages with bound values', async () => {
    const out = await structured('browse_table', {
      table: 'books',
      columns: ['id', 'title'],
      filters: [
        { column: 'author_id', op: '=', value: 2 },
        { column: 'title', op: 'like', value: 'Book 1%' },
      ],
      order_by: [{ column: 'id', direction: 'desc' }],
      limit: 3,
    });
    expect(out.rows).toEqual([
      [19, 'Book 19'],
      [16, 'Book 16'],
      [13, 'Book 13'],
    ]);
  });

  it('a query error is a query_failed tool error', async () => {
    expect(expectToolError(await tool('execute_query', { sql: 'SELECT no_such_column FROM books' }), 'query_failed')).toContain(
      'Binder Error: Referenced column "no_such_column" not found',
    );
  });
});

describe('DuckDB reads only read; writes need consent', () => {
  it('a write sent as a read is never run as one: it asks for consent', async () => {
    const args = { connection_id: 'db', sql: "INSERT INTO authors VALUES (10, 'Stanisław Lem', 1921)" };
    const first = await callTool(app, 'execute_query', args, { headers, extraMeta: ELICITATION_META });
    expectInputRequired(first, args.sql);
    const { rows } = await structured('execute_query', { sql: 'SELECT count(*) FROM authors WHERE id = 10' });
    expect(rows).toEqual([[0]]);
  });

  it('a write runs once the client consents, and changes the database', async () => {
    const out = await consented('execute_query', { connection_id: 'db', sql: "INSERT INTO authors VALUES (10, 'Stanisław Lem', 1921)" });
    expect(out).toMatchObject({ statement_kind: 'write', rows_affected: 1 });
    expect((await structured('execute_query', { sql: 'SELECT name FROM authors WHERE id = 10' })).rows).toEqual([['Stanisław Lem']]);
  });

  it('the read-only transaction refuses what the classifier let through as a read', async () => {
    const db = new DuckdbDatabase({ path: ':memory:' }, systemClock);
    try {
      const signal = new AbortController().signal;
      await db.write('CREATE TABLE t (n INTEGER)', { maxRows: 10, timeoutMs: 5_000, signal });
      await expect(db.read('INSERT INTO t VALUES (1)', { maxRows: 10, timeoutMs: 5_000, signal })).rejects.toMatchObject({
        kind: 'not_read_only',
        message: expect.stringContaining('transaction is launched in read-only mode'),
      });
      expect((await db.read('SELECT count(*) FROM t', { maxRows: 10, timeoutMs: 5_000, signal })).rows).toEqual([[0]]);
    } finally {
      await db.close();
    }
  });

  it.each([
    ["ATTACH '/tmp/other.duckdb' AS other", 'denied'],
    ["COPY books TO '/tmp/books.csv'", 'denied'],
    ["EXPORT DATABASE '/tmp/dump'", 'denied'],
    ['INSTALL httpfs', 'denied'],
    ['LOAD httpfs', 'denied'],
    ["SELECT * FROM query('DELETE FROM books')", 'denied'],
    ["SET allowed_directories = ['/']", 'unsupported'],
    ['SET enable_external_access = true', 'unsupported'],
  ])('%s is refused (%s)', async (sql, code) => {
    expectToolError(await tool('execute_query', { sql }), code);
  });
});

describe('DuckDB reads files only inside the connection’s files directory', () => {
  it('reads a CSV and a Parquet file inside it', async () => {
    const csv = await structured('execute_query', { sql: `SELECT region, amount FROM read_csv('${join(filesDir, 'sales.csv')}') ORDER BY region` });
    expect(csv.rows).toEqual([
      ['north', 10],
      ['south', 32],
    ]);
    const parquet = await structured('execute_query', { sql: `SELECT sum(n) FROM '${join(filesDir, 'numbers.parquet')}'` });
    expect(parquet.rows).toEqual([[3]]);
  });

  it('refuses a file outside it, also through ..', async () => {
    for (const file of [join(root, 'elsewhere', 'secret.csv'), join(filesDir, '..', 'elsewhere', 'secret.csv')]) {
      const message = expectToolError(await tool('execute_query', { sql: `SELECT * FROM read_csv('${file}')` }), 'query_failed');
      expect(message).toContain(`Permission Error: Cannot access file "${file}" - file system operations are disabled by configuration`);
    }
  });

  it('a consented SET cannot widen it: the configuration is locked', async () => {
    const db = new DuckdbDatabase({ path: ':memory:', filesDir }, systemClock);
    try {
      const signal = new AbortController().signal;
      await expect(db.write("SET allowed_directories = ['/']", { maxRows: 1, timeoutMs: 5_000, signal })).rejects.toMatchObject({
        kind: 'query_failed',
        message: 'Invalid Input Error: Cannot change configuration option "allowed_directories" - the configuration has been locked',
      });
      await expect(db.read(`SELECT * FROM read_csv('${join(root, 'elsewhere', 'secret.csv')}')`, { maxRows: 1, timeoutMs: 5_000, signal })).rejects.toMatchObject({
        kind: 'query_failed',
      });
    } finally {
      await db.close();
    }
  });

  it('a connection without a files directory reads no file at all', async () => {
    const message = expectToolError(
      await tool('execute_query', { sql: `SELECT * FROM read_csv('${join(filesDir, 'sales.csv')}')` }, 'scratch'),
      'query_failed',
    );
    expect(message).toContain('file system operations are disabled by configuration');
  });
});

describe('DuckDB deadlines and cancellation interrupt the statement', () => {
  it('a statement past its timeout_seconds ends with -33003, and the connection still answers', async () => {
    const started = performance.now();
    const res = await tool('execute_query', { sql: SLOW_SQL, timeout_seconds: 1 });
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -33003 } });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect((await structured('execute_query', { sql: 'SELECT 42' })).rows).toEqual([[42]]);
  });

  it('an aborted read is interrupted at once', async () => {
    const db = new DuckdbDatabase({ path: ':memory:' }, systemClock);
    try {
      const abort = new AbortController();
      const reason = new Error('the caller gave up');
      const started = performance.now();
      const running = db.read(SLOW_SQL, { maxRows: 10, timeoutMs: 60_000, signal: abort.signal });
      setTimeout(() => abort.abort(reason), 300);
      await expect(running).rejects.toBe(reason);
      expect(performance.now() - started).toBeLessThan(3_000);
      const timedOut = db.read(SLOW_SQL, { maxRows: 10, timeoutMs: 300, signal: new AbortController().signal });
      await expect(timedOut.catch((error: unknown) => Promise.reject(fromDriverError(error)))).rejects.toBeInstanceOf(ProtocolError);
      expect((await db.read('SELECT 1', { maxRows: 1, timeoutMs: 5_000, signal: new AbortController().signal })).rows).toEqual([[1]]);
    } finally {
      await db.close();
    }
  });

  it('closing the database (the connection removed or moved) interrupts what still runs', async () => {
    const db = new DuckdbDatabase({ path: ':memory:' }, systemClock);
    await db.read('SELECT 1', { maxRows: 1, timeoutMs: 5_000, signal: new AbortController().signal });
    const running = db.read(SLOW_SQL, { maxRows: 1, timeoutMs: 60_000, signal: new AbortController().signal });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    await db.close();
    expect(performance.now() - started).toBeLessThan(2_000);
    await expect(running).rejects.toMatchObject({ kind: 'not_connected', message: 'the DuckDB database was closed while the statement ran' });
  });
});

describe('DuckDB in memory', () => {
  it('creates a table after consent and reads it back', async () => {
    const admin = mintToken(app, 'duckdb admin', 'fullAccess').headers;
    const created = await consented('execute_query', { connection_id: 'scratch', sql: 'CREATE TABLE notes (id INTEGER, body VARCHAR)' }, admin);
    expect(created).toMatchObject({ statement_kind: 'ddl' });
    const inserted = await consented('execute_query', { connection_id: 'scratch', sql: "INSERT INTO notes VALUES (1, 'kept in memory')" }, admin);
    expect(inserted).toMatchObject({ rows_affected: 1 });
    expect((await structured('list_databases', {}, 'scratch')).databases).toEqual(['memory']);
    expect((await structured('execute_query', { sql: 'SELECT * FROM notes' }, 'scratch')).rows).toEqual([[1, 'kept in memory']]);
  });
});
