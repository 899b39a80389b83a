import type { Engine } from '../../src/db/database.js';

/**
 * Shapes that got writes, file access or server-side code past the read-only mode of database tools,
 * each of which Sluice must not classify as a read on its engines. They name only `sluice_canary` (a
 * table `(id integer primary key, note varchar(50))` with a few rows) and, on PostgreSQL and DuckDB,
 * `sluice_canary_seq`, and files only under /tmp/sluice-canary-*, so an end-to-end test can send each
 * one with a read-only token and check that nothing changed.
 */
export type BypassShape = { engines: Engine[]; sql: string; why: string };

const ALL: Engine[] = ['sqlite', 'postgres', 'mysql', 'duckdb'];
const SERVERS: Engine[] = ['postgres', 'mysql'];

export const BYPASS_CORPUS: BypassShape[] = [
  // Stacked statements and transaction tricks.
  { engines: ALL, sql: 'SELECT 1; DROP TABLE sluice_canary', why: 'a second statement after a read' },
  { engines: ALL, sql: 'SELECT 1;DELETE FROM sluice_canary;', why: 'stacked statements without spaces' },
  { engines: ALL, sql: 'COMMIT; DELETE FROM sluice_canary', why: 'ends the read-only transaction, then writes' },
  {
    engines: ALL,
    sql: "ROLLBACK; INSERT INTO sluice_canary (id, note) VALUES (90, 'x')",
    why: 'ends the read-only transaction, then writes',
  },
  { engines: ['sqlite', 'postgres', 'duckdb'], sql: 'END; DELETE FROM sluice_canary', why: 'END commits on SQLite, PostgreSQL and DuckDB' },
  { engines: ALL, sql: 'COMMIT', why: 'ends the transaction Sluice holds read-only' },
  { engines: SERVERS, sql: 'START TRANSACTION READ WRITE', why: 'opens a writable transaction' },
  { engines: ['postgres', 'duckdb'], sql: 'ABORT; DELETE FROM sluice_canary', why: 'ABORT is ROLLBACK on PostgreSQL and DuckDB' },
  { engines: ['duckdb'], sql: 'BEGIN TRANSACTION', why: 'opens a transaction the next statement would write in' },

  // Comments and strings hiding the semicolon.
  { engines: ALL, sql: "SELECT '1;'; DELETE FROM sluice_canary", why: 'a semicolon in a string, then a real one' },
  { engines: ALL, sql: 'SELECT 1 -- ;\n; DELETE FROM sluice_canary', why: 'a line comment ends at the newline' },
  { engines: ALL, sql: 'SELECT 1 /* ; */; DELETE FROM sluice_canary', why: 'a semicolon in a comment, then a real one' },
  {
    engines: ['postgres', 'duckdb'],
    sql: "SELECT 1 /* /* */ '*/; DELETE FROM sluice_canary; -- '",
    why: 'PostgreSQL (and DuckDB, its parser) nest comments: a lexer that does not sees a string where the server sees a DELETE',
  },
  {
    engines: ['sqlite', 'mysql'],
    sql: 'SELECT 1 /* /* */ ; DELETE FROM sluice_canary; -- */',
    why: 'SQLite and MySQL do not nest comments: a lexer that does sees one comment',
  },
  {
    engines: ['postgres'],
    sql: 'SELECT 1 --\r; DELETE FROM sluice_canary',
    why: 'PostgreSQL ends a line comment at a carriage return too',
  },
  {
    engines: ['postgres'],
    sql: "SELECT $$'$$; DELETE FROM sluice_canary; -- '",
    why: 'a dollar-quoted quote: a lexer without dollar quotes sees one string',
  },
  {
    engines: ['postgres'],
    sql: 'SELECT $body$ ; $body$; DELETE FROM sluice_canary',
    why: 'a semicolon in a tagged dollar quote, then a real one',
  },
  {
    engines: ['postgres'],
    sql: "SELECT E'\\''; DELETE FROM sluice_canary; -- '",
    why: 'a backslash escapes the quote in an E string',
  },
  {
    engines: ['postgres'],
    sql: "SELECT 1e'\\''; DELETE FROM sluice_canary; -- '",
    why: "PostgreSQL 14 and older read 1e'…' as 1 then an E string",
  },
  {
    engines: ['postgres'],
    sql: 'SELECT é$$; DELETE FROM sluice_canary; SELECT 1 AS x$$',
    why: 'a non-ASCII letter starts an identifier, which takes the $$ with it',
  },
  {
    engines: ALL,
    sql: "SELECT 'a\\\\'; DELETE FROM sluice_canary",
    why: 'an escaped backslash, then the string ends: two statements everywhere',
  },
  {
    engines: ALL,
    sql: "SELECT 'a\\'; DELETE FROM sluice_canary; -- '",
    why: 'two statements wherever a backslash is itself (MySQL under NO_BACKSLASH_ESCAPES too)',
  },
  {
    engines: SERVERS,
    sql: "SELECT 'a\\''; DELETE FROM sluice_canary; -- '",
    why: 'two statements wherever a backslash escapes (PostgreSQL with standard_conforming_strings off)',
  },
  {
    engines: ['mysql'],
    sql: 'SELECT 1 --1; DELETE FROM sluice_canary',
    why: 'in MySQL --1 is minus minus one, not a comment',
  },
  {
    engines: ['mysql'],
    sql: "SELECT 1 # '\n; DELETE FROM sluice_canary; -- '",
    why: '# starts a comment in MySQL: a lexer that does not know sees one string',
  },
  {
    engines: ['mysql'],
    sql: "SELECT 1 --\t'\n; DELETE FROM sluice_canary; -- '",
    why: 'a tab after -- starts a MySQL comment too',
  },
  {
    engines: ['sqlite'],
    sql: "SELECT $a(x') ; DELETE FROM sluice_canary ; SELECT 1 -- '",
    why: 'SQLite reads $a(…) up to the next ) as one parameter, quote included',
  },

  // MySQL executable comments.
  { engines: ['mysql'], sql: 'SELECT 1 /*!; DELETE FROM sluice_canary */', why: 'an executable comment is code' },
  { engines: ['mysql'], sql: '/*!50000 DELETE FROM sluice_canary */', why: 'a versioned executable comment is code' },
  { engines: ['mysql'], sql: '/*M! DELETE FROM sluice_canary */', why: 'MariaDB runs /*M! … */ as code' },
  {
    engines: ['mysql'],
    sql: "SELECT 1 /*! , (SELECT 1) */ INTO OUTFILE '/tmp/sluice-canary-outfile'",
    why: 'an executable comment inside a file export',
  },
  {
    engines: ['mysql'],
    sql: "SELECT 1 /*!99999 ' */ ; DELETE FROM sluice_canary; -- ' */",
    why: 'an older server skips the versioned comment at its first */, where the quote would not end it',
  },

  // Data-modifying CTEs and wrappers that run what they wrap.
  {
    engines: ['postgres'],
    sql: 'WITH d AS (DELETE FROM sluice_canary RETURNING *) SELECT * FROM d',
    why: 'a data-modifying CTE under a SELECT',
  },
  {
    engines: ['postgres'],
    sql: "WITH i AS (INSERT INTO sluice_canary (id, note) VALUES (91, 'x') RETURNING *) SELECT * FROM i",
    why: 'a data-modifying CTE under a SELECT',
  },
  {
    engines: ['postgres'],
    sql: "WITH u AS (UPDATE sluice_canary SET note = 'x' RETURNING *) SELECT count(*) FROM u",
    why: 'a data-modifying CTE under a SELECT',
  },
  {
    engines: ALL,
    sql: 'WITH x AS (SELECT 1 AS id) DELETE FROM sluice_canary WHERE id IN (SELECT id FROM x)',
    why: 'a WITH whose main statement is a DELETE',
  },
  {
    engines: ['sqlite'],
    sql: "WITH x AS (SELECT 1) REPLACE INTO sluice_canary (id, note) VALUES (1, 'x')",
    why: 'REPLACE as a statement, not the replace() function',
  },
  { engines: SERVERS, sql: 'EXPLAIN ANALYZE DELETE FROM sluice_canary', why: 'EXPLAIN ANALYZE runs the statement' },
  {
    engines: ['postgres'],
    sql: 'EXPLAIN (ANALYZE, COSTS OFF) DELETE FROM sluice_canary WHERE id = 1',
    why: 'EXPLAIN (ANALYZE) runs the statement',
  },
  {
    engines: ['postgres'],
    sql: 'EXPLAIN ("analyze") UPDATE sluice_canary SET note = \'x\'',
    why: 'a quoted option name is still ANALYZE',
  },
  {
    engines: ['postgres'],
    sql: 'EXPLAIN ANALYSE WITH d AS (DELETE FROM sluice_canary RETURNING *) SELECT * FROM d',
    why: 'the British spelling runs it too',
  },
  { engines: ['mysql'], sql: 'ANALYZE DELETE FROM sluice_canary WHERE id = 1', why: "MariaDB's ANALYZE runs the statement" },
  // EXPLAIN options: only ANALYZE false, off or 0 merely plans (issue 29, item 5).
  { engines: ['postgres'], sql: 'EXPLAIN (ANALYZE true) DELETE FROM sluice_canary WHERE id = 1', why: 'ANALYZE true runs it' },
  { engines: ['postgres'], sql: "EXPLAIN (ANALYZE on) UPDATE sluice_canary SET note = 'x' WHERE id = 1", why: 'ANALYZE on runs it' },
  { engines: ['postgres'], sql: 'EXPLAIN (ANALYZE 1) DELETE FROM sluice_canary WHERE id = 1', why: 'ANALYZE 1 runs it' },
  { engines: ['postgres'], sql: "EXPLAIN (ANALYZE 'on') DELETE FROM sluice_canary WHERE id = 1", why: 'a string value runs it too' },
  {
    engines: ['postgres'],
    sql: 'EXPLAIN (COSTS false, ANALYZE) DELETE FROM sluice_canary WHERE id = 1',
    why: 'ANALYZE without a value, after another option, runs it',
  },
  {
    engines: ['postgres'],
    sql: 'EXPLAIN (ANALYZE false, ANALYZE true) DELETE FROM sluice_canary WHERE id = 1',
    why: 'the last ANALYZE is the one that counts',
  },
  // A data-changing verb named as a CTE, then used as a statement.
  {
    engines: ['postgres'],
    sql: "WITH update AS (SELECT 1 AS id) UPDATE sluice_canary SET note = 'x' WHERE id IN (SELECT id FROM update)",
    why: 'a CTE named update before an UPDATE',
  },
  {
    engines: ['postgres'],
    sql: 'WITH delete AS (SELECT 1 AS id), d AS (DELETE FROM sluice_canary WHERE id = 2 RETURNING *) SELECT * FROM delete',
    why: 'a data-modifying CTE after one named delete',
  },
  {
    engines: ['postgres'],
    sql: 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 2) CYCLE n SET c USING p DELETE FROM sluice_canary WHERE id = 1',
    why: 'the statement after a CYCLE clause',
  },
  {
    engines: ['sqlite'],
    sql: "WITH replace AS (SELECT 1) REPLACE INTO sluice_canary (id, note) SELECT 1, 'x' FROM replace",
    why: 'a CTE named replace before a REPLACE',
  },

  // Reads with side effects.
  { engines: SERVERS, sql: 'SELECT * FROM sluice_canary FOR UPDATE', why: 'locks rows' },
  { engines: ['postgres'], sql: 'SELECT * FROM sluice_canary FOR NO KEY UPDATE', why: 'locks rows' },
  { engines: ['mysql'], sql: 'SELECT * FROM sluice_canary LOCK IN SHARE MODE', why: 'locks rows' },
  {
    engines: ['postgres'],
    sql: 'SELECT * INTO sluice_canary_copy FROM sluice_canary',
    why: 'SELECT … INTO creates a table on PostgreSQL',
  },
  { engines: ['postgres'], sql: "SELECT nextval('sluice_canary_seq')", why: 'advances a sequence' },
  { engines: ['postgres'], sql: "SELECT setval('sluice_canary_seq', 42)", why: 'sets a sequence' },
  { engines: ['postgres'], sql: 'SELECT "nextval"(\'sluice_canary_seq\')', why: 'a quoted function name' },
  {
    engines: ['postgres'],
    sql: "SELECT pg_catalog.nextval('sluice_canary_seq')",
    why: 'a schema-qualified function name',
  },
  { engines: ['postgres'], sql: "VALUES (nextval('sluice_canary_seq'))", why: 'a side effect under VALUES' },
  {
    engines: ['postgres'],
    sql: 'SELECT U&"\\006Eextval"(\'sluice_canary_seq\')',
    why: 'a Unicode-escaped function name',
  },
  { engines: ['postgres'], sql: 'SELECT pg_advisory_lock(1)', why: 'takes a session lock' },
  { engines: ['postgres'], sql: "SELECT pg_notify('sluice_canary', 'x')", why: 'notifies other sessions' },
  { engines: ['postgres'], sql: 'SELECT txid_current()', why: 'assigns a transaction id' },
  { engines: ['mysql'], sql: "SELECT GET_LOCK('sluice_canary', 1)", why: 'takes a named lock' },
  { engines: ['mysql'], sql: "SHOW TABLES WHERE GET_LOCK('sluice_canary', 1)", why: 'a side effect under SHOW' },
  { engines: ['mysql'], sql: "DO GET_LOCK('sluice_canary', 1)", why: 'DO evaluates its expressions' },

  // Files, server-side code, other servers.
  { engines: ['postgres'], sql: "COPY sluice_canary TO PROGRAM 'true'", why: 'runs a program on the server' },
  { engines: ['postgres'], sql: "COPY (SELECT 1) TO '/tmp/sluice-canary-copy'", why: 'writes a server file' },
  { engines: ['postgres'], sql: "SELECT pg_read_file('/tmp/sluice-canary-read')", why: 'reads a server file' },
  { engines: ['postgres'], sql: "SELECT lo_import('/tmp/sluice-canary-import')", why: 'reads a server file' },
  {
    engines: ['postgres'],
    sql: "SELECT dblink_exec('dbname=postgres', 'DELETE FROM sluice_canary')",
    why: 'runs SQL over another connection',
  },
  {
    engines: ['postgres'],
    sql: "SELECT query_to_xml('DELETE FROM sluice_canary RETURNING *', true, true, '')",
    why: 'runs SQL text',
  },
  { engines: ['postgres'], sql: 'DO $$ BEGIN DELETE FROM sluice_canary; END $$', why: 'runs a code block' },
  { engines: ['postgres'], sql: 'CREATE EXTENSION IF NOT EXISTS dblink', why: 'loads server-side code' },
  {
    engines: ['postgres'],
    sql: "CREATE FUNCTION sluice_canary_fn() RETURNS int LANGUAGE 'c' AS '/tmp/sluice-canary-lib', 'f'",
    why: 'a C function is native code',
  },
  { engines: ['mysql'], sql: "SELECT * FROM sluice_canary INTO OUTFILE '/tmp/sluice-canary-out'", why: 'writes a server file' },
  {
    engines: ['mysql'],
    sql: "LOAD DATA INFILE '/tmp/sluice-canary-in' INTO TABLE sluice_canary",
    why: 'reads a server file into a table',
  },
  { engines: ['mysql'], sql: "SELECT LOAD_FILE('/tmp/sluice-canary-read')", why: 'reads a server file' },
  { engines: ['mysql'], sql: "SELECT `load_file`('/tmp/sluice-canary-read')", why: 'a quoted function name' },
  { engines: ['sqlite'], sql: "ATTACH DATABASE '/tmp/sluice-canary-attach.db' AS x", why: 'opens another file' },
  { engines: ['sqlite'], sql: "VACUUM INTO '/tmp/sluice-canary-vacuum.db'", why: 'writes another file' },
  { engines: ['sqlite'], sql: "SELECT load_extension('/tmp/sluice-canary-ext')", why: 'loads native code' },
  { engines: ['sqlite'], sql: 'SELECT "load_extension"(\'/tmp/sluice-canary-ext\')', why: 'a quoted function name' },
  { engines: ['sqlite'], sql: "SELECT [writefile]('/tmp/sluice-canary-w', 'x')", why: 'a bracketed function name' },

  // Session state.
  {
    engines: ['postgres'],
    sql: 'SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE',
    why: 'makes later transactions writable',
  },
  { engines: ['postgres'], sql: 'SET transaction_read_only = off', why: 'makes the transaction writable' },
  {
    engines: ['postgres'],
    sql: "SELECT set_config('transaction_read_only', 'off', false)",
    why: 'SET as a function',
  },
  { engines: ['mysql'], sql: 'SET SESSION TRANSACTION READ WRITE', why: 'makes later transactions writable' },
  { engines: ['postgres'], sql: 'PREPARE p AS DELETE FROM sluice_canary', why: 'hides a DELETE behind a name' },
  { engines: ['mysql'], sql: "PREPARE p FROM 'DELETE FROM sluice_canary'", why: 'hides a DELETE in a string' },
  { engines: SERVERS, sql: 'EXECUTE p', why: 'runs what an earlier call prepared' },
  { engines: ['duckdb'], sql: "COPY sluice_canary TO '/tmp/sluice-canary-copy.csv'", why: 'writes a file' },
  { engines: ['duckdb'], sql: "EXPORT DATABASE '/tmp/sluice-canary-export'", why: 'writes a directory of files' },
  { engines: ['duckdb'], sql: "ATTACH '/tmp/sluice-canary-attach.duckdb' AS x", why: 'opens (and makes) another file' },
  { engines: ['duckdb'], sql: 'INSTALL httpfs', why: 'installs native code' },
  { engines: ['duckdb'], sql: 'LOAD httpfs', why: 'loads native code' },
  { engines: ['duckdb'], sql: "SELECT * FROM query('DELETE FROM sluice_canary')", why: 'runs SQL text' },
  { engines: ['duckdb'], sql: "SELECT nextval('sluice_canary_seq')", why: 'advances a sequence' },
  { engines: ['duckdb'], sql: 'SET enable_external_access = true', why: 'opens the file system to later statements' },
  { engines: ['duckdb'], sql: 'CHECKPOINT', why: 'writes the database file' },
  { engines: ['sqlite'], sql: 'PRAGMA query_only = 0', why: 'turns the read-only switch off' },
  { engines: ['sqlite'], sql: 'PRAGMA query_only(0)', why: 'the same, as a call' },
  { engines: ['sqlite'], sql: 'PRAGMA user_version(7)', why: 'a read-looking pragma that sets with parentheses' },
  { engines: ['sqlite'], sql: 'PRAGMA main.user_version = 7', why: 'a schema-qualified pragma that sets' },
  { engines: ['sqlite'], sql: 'PRAGMA journal_mode = WAL', why: 'changes the journal mode, which query_only does not stop' },
  { engines: ['sqlite'], sql: 'PRAGMA journal_mode(MEMORY)', why: 'the same, as a call' },
];
