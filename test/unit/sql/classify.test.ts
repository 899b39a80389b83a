import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyStatement } from '../../../src/sql/classify.js';
import type { Engine } from '../../../src/core/shared/engineNames.js';
import { splitStatements, tokenize, UnreadableSql } from '../../../src/sql/tokens.js';
import { ToolError } from '../../../src/core/errors.js';
import { fromDriverError } from '../../../src/capabilities/dbErrors.js';
import { SqlRefusal } from '../../../src/sql/sqlRefusal.js';
import { BYPASS_CORPUS } from '../../helpers/bypassCorpus.js';

const ENGINES: Engine[] = ['sqlite', 'postgres', 'mysql', 'duckdb'];

const kindOn = (engine: Engine) => (sql: string) => classifyStatement(sql, engine).kind;
const refusalOn = (engine: Engine) => (sql: string) => {
  try {
    classifyStatement(sql, engine);
  } catch (error) {
    if (error instanceof SqlRefusal) return error.kind;
    throw error;
  }
  return undefined;
};
const kind = kindOn('sqlite');
const refusal = refusalOn('sqlite');

/** The statements the lexer finds, each as its tokens' texts joined by spaces. */
const statements = (sql: string, engine: Engine) =>
  splitStatements(tokenize(sql, engine)).map((s) => s.map((t) => t.text).join(' '));
const unreadable = (sql: string, engine: Engine) => expect(() => tokenize(sql, engine)).toThrow(UnreadableSql);

describe('classifyStatement (SQLite)', () => {
  it.each([
    ['SELECT 1', 'read'],
    ['  select * from t -- trailing comment', 'read'],
    ['/* lead */ SELECT 1;', 'read'],
    ['VALUES (1), (2)', 'read'],
    ['EXPLAIN QUERY PLAN SELECT 1', 'read'],
    ['WITH x AS (SELECT 1) SELECT * FROM x', 'read'],
    ["SELECT replace(name, 'a', 'b') FROM t", 'read'],
    ['PRAGMA table_info(books)', 'read'],
    ['PRAGMA user_version', 'read'],
    ['PRAGMA user_version = 3', 'write'],
    ['PRAGMA user_version(3)', 'write'],
    ['PRAGMA journal_mode', 'read'],
    ['PRAGMA journal_mode = WAL', 'write'],
    ['PRAGMA journal_mode(WAL)', 'write'],
    ['INSERT INTO t VALUES (1)', 'write'],
    ["UPDATE t SET a = 'DROP' WHERE id = 1", 'write'],
    ['DELETE FROM t WHERE id = 1', 'write'],
    ['WITH x AS (SELECT 1) DELETE FROM t WHERE id IN x', 'write'],
    ['WITH x AS (SELECT 1) REPLACE INTO t SELECT * FROM x', 'write'],
    ['REPLACE INTO t VALUES (1)', 'write'],
    ['CREATE TABLE t (a)', 'ddl'],
    ['ALTER TABLE t ADD COLUMN b', 'ddl'],
    ['ANALYZE t', 'ddl'],
    ['DROP TABLE t', 'destructive'],
    ['DELETE FROM t', 'destructive'],
    ['FROBNICATE everything', 'write'],
    ['(SELECT 1)', 'write'],
  ])('%s → %s', (sql, expected) => {
    expect(kind(sql)).toBe(expected);
  });

  it('keywords inside strings, identifiers and comments do not count', () => {
    expect(kind("SELECT 'DELETE FROM t; DROP TABLE t' AS s")).toBe('read');
    expect(kind('SELECT "drop" FROM [delete] -- ; DROP TABLE t')).toBe('read');
    expect(kind("SELECT 1 /* ; DELETE FROM t */ WHERE 'it''s' = 'it''s'")).toBe('read');
  });

  it('refuses more than one statement, empty text and unreadable text', () => {
    expect(refusal('SELECT 1; SELECT 2')).toBe('invalid_argument');
    expect(refusal('SELECT 1; DELETE FROM t')).toBe('invalid_argument');
    expect(refusal(' ;; -- nothing')).toBe('invalid_argument');
    expect(refusal("SELECT 'unterminated")).toBe('invalid_argument');
    expect(refusal('SELECT 1 /* unterminated')).toBe('invalid_argument');
  });

  it('refuses file access, extension loading and transaction control', () => {
    expect(refusal("ATTACH DATABASE '/etc/passwd' AS p")).toBe('denied');
    expect(refusal("VACUUM INTO '/tmp/copy.db'")).toBe('denied');
    expect(refusal("SELECT load_extension('evil')")).toBe('denied');
    expect(refusal("SELECT writefile('/tmp/x', 'y')")).toBe('denied');
    expect(refusal('SELECT "writefile"(\'/tmp/x\', \'y\')')).toBe('denied');
    expect(refusal('BEGIN')).toBe('unsupported');
    expect(refusal('COMMIT')).toBe('unsupported');
    expect(refusal('END')).toBe('unsupported');
  });

  it('a denied function counts only where it is called', () => {
    expect(kind('SELECT edit FROM t')).toBe('read');
    expect(kind("SELECT 'load_extension(1)'")).toBe('read');
  });
});

describe('the lexer, on every engine', () => {
  it.each(ENGINES)('%s: skips whitespace and block comments', (engine) => {
    expect(statements('SELECT\t/* ; */\n1\r\f', engine)).toEqual(['SELECT 1']);
    expect(statements('SELECT 1 /* a */; DELETE', engine)).toEqual(['SELECT 1', 'DELETE']);
  });

  it.each(ENGINES)('%s: a doubled quote escapes it in a string', (engine) => {
    expect(statements("SELECT 'it''s; x'", engine)).toEqual(["SELECT 'it''s; x'"]);
    expect(statements("SELECT 'a''; DELETE'", engine)).toHaveLength(1);
    expect(statements("SELECT 'a'; ';'", engine)).toHaveLength(2);
  });

  it.each(ENGINES)('%s: unterminated strings, comments and quotes are unreadable', (engine) => {
    unreadable("SELECT 'open", engine);
    unreadable('SELECT 1 /* open', engine);
    unreadable(engine === 'postgres' || engine === 'duckdb' ? 'SELECT "open' : 'SELECT `open', engine);
  });

  it.each(ENGINES)('%s: a NUL character is unreadable', (engine) => {
    unreadable('SELECT 1\0; DELETE FROM t', engine);
  });

  it.each(ENGINES)('%s: non-ASCII letters belong to words', (engine) => {
    expect(tokenize('SELECT é1, naïve', engine).map((t) => t.text)).toEqual(['SELECT', 'É1', ',', 'NAÏVE']);
  });
});

describe('the SQLite lexer', () => {
  it('-- comments run to the newline, whatever follows the dashes', () => {
    expect(statements('SELECT 1 --x; DELETE\n', 'sqlite')).toEqual(['SELECT 1']);
    expect(statements('SELECT 1 --x\r; DELETE', 'sqlite')).toEqual(['SELECT 1']);
    expect(statements('SELECT 1 --\n; DELETE', 'sqlite')).toEqual(['SELECT 1', 'DELETE']);
  });

  it('quotes identifiers with ", ` and […], and # is no comment', () => {
    expect(tokenize('SELECT "a;b", `c;d`, [e;f]', 'sqlite').filter((t) => t.kind === 'quoted')).toHaveLength(3);
    expect(statements('SELECT [a; DELETE]', 'sqlite')).toEqual(['SELECT A; DELETE']);
    expect(statements('SELECT 1 # x; DELETE', 'sqlite')).toHaveLength(2);
  });

  it('a backslash is itself and block comments do not nest', () => {
    expect(statements("SELECT 'a\\'; DELETE", 'sqlite')).toHaveLength(2);
    expect(statements("SELECT E'a\\'; DELETE", 'sqlite')).toEqual(["SELECT E 'a\\'", 'DELETE']);
    expect(statements('SELECT /* /* */ 1; DELETE', 'sqlite')).toEqual(['SELECT 1', 'DELETE']);
  });

  it('$ is no quote, and a $name( parameter is unreadable', () => {
    expect(statements('SELECT $$;$$', 'sqlite')).toHaveLength(2);
    expect(statements('SELECT $a, :b, @c (1)', 'sqlite')).toHaveLength(1);
    unreadable("SELECT $a(x') ; DELETE FROM t ; SELECT 1 -- '", 'sqlite');
    unreadable('SELECT :a::b(1)', 'sqlite');
  });
});

describe('the PostgreSQL lexer', () => {
  it('-- comments end at a newline or a carriage return', () => {
    expect(statements('SELECT 1 --x; DELETE\n', 'postgres')).toEqual(['SELECT 1']);
    expect(statements('SELECT 1 --x\r; DELETE', 'postgres')).toEqual(['SELECT 1', 'DELETE']);
  });

  it('block comments nest', () => {
    expect(statements('SELECT 1 /* a /* b */ still ; comment */', 'postgres')).toEqual(['SELECT 1']);
    expect(statements('SELECT 1 /**/ ; DELETE', 'postgres')).toHaveLength(2);
    unreadable('SELECT 1 /* a /* b */', 'postgres');
  });

  it('dollar quotes, with or without a tag; $1 is a parameter', () => {
    expect(statements('SELECT $$a; b$$', 'postgres')).toEqual(['SELECT $$a; b$$']);
    expect(statements('SELECT $t$ $$; $x$ $t$', 'postgres')).toHaveLength(1);
    expect(statements('SELECT $1; DELETE', 'postgres')).toEqual(['SELECT $ 1', 'DELETE']);
    expect(statements('SELECT a$$b; DELETE', 'postgres')).toEqual(['SELECT A$$B', 'DELETE']);
    unreadable('SELECT $t$ open $$', 'postgres');
  });

  it("E'…' strings take backslash escapes; plain strings with a backslash before a quote are unreadable", () => {
    expect(statements("SELECT E'\\''; DELETE", 'postgres')).toEqual(["SELECT E'\\''", 'DELETE']);
    expect(statements("SELECT e'a\\\\'; DELETE", 'postgres')).toHaveLength(2);
    expect(statements("SELECT 'a\\\\'; DELETE", 'postgres')).toHaveLength(2);
    expect(statements("SELECT 'C:\\temp'", 'postgres')).toHaveLength(1);
    unreadable("SELECT 'a\\'; DELETE FROM t; -- '", 'postgres');
  });

  it("a number ends before a letter, so 1e'…' is 1 then an E string", () => {
    expect(statements("SELECT 1e'\\''; DELETE", 'postgres')).toEqual(["SELECT 1 e'\\''", 'DELETE']);
    expect(statements('SELECT 1.5e3, 10', 'postgres')).toEqual(['SELECT 1.5E3 , 10']);
  });

  it('"…" quotes identifiers; [ and ` are punctuation; U&"…" is unreadable', () => {
    expect(tokenize('SELECT "Nextval"(1)', 'postgres')[1]).toEqual({ kind: 'quoted', text: 'NEXTVAL' });
    expect(statements('SELECT a[1], `b`; DELETE', 'postgres')).toHaveLength(2);
    unreadable('SELECT U&"\\0061"', 'postgres');
    unreadable("SELECT u&'\\0061'", 'postgres');
  });

  it('# is an operator and /*! … */ a comment', () => {
    expect(statements('SELECT 1 # 2', 'postgres')).toEqual(['SELECT 1 # 2']);
    expect(statements('SELECT 1 /*! ; DELETE */', 'postgres')).toEqual(['SELECT 1']);
  });
});

describe('the MySQL lexer', () => {
  it('-- starts a comment only before a space, a control character or the end', () => {
    expect(statements('SELECT 1 -- x; DELETE', 'mysql')).toEqual(['SELECT 1']);
    expect(statements('SELECT 1 --\tx; DELETE', 'mysql')).toEqual(['SELECT 1']);
    expect(statements('SELECT 1 --', 'mysql')).toEqual(['SELECT 1']);
    expect(statements('SELECT 1 --1; DELETE', 'mysql')).toEqual(['SELECT 1 - - 1', 'DELETE']);
  });

  it('# starts a comment; line comments end at a newline only', () => {
    expect(statements('SELECT 1 # x; DELETE\n', 'mysql')).toEqual(['SELECT 1']);
    expect(statements('SELECT 1 # x\r; DELETE', 'mysql')).toEqual(['SELECT 1']);
    expect(statements('SELECT 1 # x\n; DELETE', 'mysql')).toEqual(['SELECT 1', 'DELETE']);
  });

  it("backslashes escape in '…' and \"…\"; a backslash before the quote is unreadable", () => {
    expect(statements("SELECT 'a\\\\'; DELETE", 'mysql')).toHaveLength(2);
    expect(statements("SELECT 'a\\n;'", 'mysql')).toHaveLength(1);
    expect(tokenize('SELECT "a;b"', 'mysql')[1]?.kind).toBe('quoted');
    unreadable("SELECT 'it\\'s'", 'mysql');
    unreadable('SELECT "it\\"s"', 'mysql');
  });

  it('backticks quote identifiers with doubled backticks; [ is punctuation; block comments do not nest', () => {
    expect(tokenize('SELECT `a``;b`', 'mysql')[1]).toEqual({ kind: 'quoted', text: 'A`;B' });
    expect(statements('SELECT [a; b]', 'mysql')).toHaveLength(2);
    expect(statements('SELECT $$;$$', 'mysql')).toHaveLength(2);
    expect(statements('SELECT /* /* */ 1; DELETE', 'mysql')).toEqual(['SELECT 1', 'DELETE']);
  });

  it('/*! … */, /*NNNNN … */ and /*M! … */ are code; /*+ … */ and /* … */ are comments', () => {
    expect(statements('/*! DROP TABLE t */', 'mysql')).toEqual(['DROP TABLE T']);
    expect(statements('SELECT 1 /*!; DELETE FROM t */', 'mysql')).toEqual(['SELECT 1', 'DELETE FROM T']);
    expect(statements('SELECT 1 /*!50000 , 2*/', 'mysql')).toEqual(['SELECT 1 , 2']);
    expect(statements('SELECT 1 /*M!100100 , 2 */', 'mysql')).toEqual(['SELECT 1 , 2']);
    expect(statements('SELECT /*+ BKA(t) */ 1 /* ; DELETE */', 'mysql')).toEqual(['SELECT 1']);
    expect(statements("SELECT 1 /*! , 'a' */ */", 'mysql')).toEqual(["SELECT 1 , 'a' * /"]);
  });

  it('an executable comment that a quote, a nested comment or the end keeps open is unreadable', () => {
    unreadable("SELECT 1 /*!99999 ' */ ; DELETE FROM t; -- ' */", 'mysql');
    unreadable('SELECT 1 /*! 2 /* x */ */', 'mysql');
    unreadable('SELECT 1 /*! 2 -- x\n */', 'mysql');
    unreadable('SELECT 1 /*! 2', 'mysql');
    unreadable("SELECT /*+ SET_VAR(x = '*/') */ 1", 'mysql');
  });
});

describe('classifyStatement (PostgreSQL)', () => {
  const kind = kindOn('postgres');
  const refusal = refusalOn('postgres');

  it.each([
    ['SELECT * FROM t', 'read'],
    ['TABLE t', 'read'],
    ['SHOW search_path', 'read'],
    ['VALUES (1)', 'read'],
    ['WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r', 'read'],
    ["SELECT $$DELETE FROM t$$, 'INTO'", 'read'],
    ['SELECT currval(\'s\'), "nextval" FROM t', 'read'],
    ['EXPLAIN SELECT * FROM t', 'read'],
    ['EXPLAIN DELETE FROM t', 'read'],
    ['EXPLAIN (COSTS OFF, FORMAT JSON) SELECT 1', 'read'],
    ['EXPLAIN ANALYZE SELECT * FROM t', 'read'],
    ['EXPLAIN (ANALYZE, BUFFERS) SELECT 1', 'read'],
    ['EXPLAIN ANALYZE DELETE FROM t WHERE id = 1', 'write'],
    ['EXPLAIN ANALYZE DELETE FROM t', 'destructive'],
    ['EXPLAIN (ANALYZE false) INSERT INTO t VALUES (1)', 'read'],
    ['EXPLAIN (ANALYZE true) INSERT INTO t VALUES (1)', 'write'],
    ['EXPLAIN ANALYZE VERBOSE SELECT nextval(\'s\')', 'write'],
    ["EXPLAIN SELECT nextval('s')", 'write'],
    ['SELECT * FROM t FOR UPDATE', 'write'],
    ['SELECT * FROM t FOR SHARE', 'write'],
    ['SELECT * FROM t FOR NO KEY UPDATE', 'write'],
    ['SELECT * FROM t FOR KEY SHARE', 'write'],
    ['SELECT * INTO t2 FROM t', 'write'],
    ['WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', 'destructive'],
    ['WITH d AS (DELETE FROM t WHERE id = 1 RETURNING *) SELECT * FROM d', 'write'],
    ['WITH m AS (MERGE INTO t USING u ON true WHEN MATCHED THEN DELETE RETURNING *) SELECT 1', 'destructive'],
    ['WITH m AS (MERGE INTO t USING u ON t.id = u.id WHEN MATCHED THEN DELETE RETURNING *) SELECT 1', 'write'],
    ["SELECT nextval('s')", 'write'],
    ["SELECT pg_catalog.setval('s', 1)", 'write'],
    ['SELECT pg_try_advisory_xact_lock_shared(1)', 'write'],
    ["SELECT lo_from_bytea(0, 'x')", 'write'],
    ['SELECT pg_current_xact_id()', 'write'],
    ["NOTIFY ch, 'x'", 'write'],
    ['CALL p()', 'write'],
    ['INSERT INTO t VALUES (1)', 'write'],
    ['MERGE INTO t USING u ON true WHEN MATCHED THEN DELETE', 'destructive'],
    ['MERGE INTO t USING u ON t.id = u.id WHEN MATCHED THEN DELETE', 'write'],
    ['LOCK TABLE t', 'write'],
    ['DELETE FROM t WHERE id = 1', 'write'],
    ['DELETE FROM t', 'destructive'],
    ['TRUNCATE t', 'destructive'],
    ['DROP TABLE t', 'destructive'],
    ['CREATE TABLE t (a int)', 'ddl'],
    ["CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'", 'ddl'],
    ['CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$', 'ddl'],
    ['CREATE FOREIGN TABLE ft (a int) SERVER s', 'ddl'],
    ['ANALYZE t', 'ddl'],
    ['ANALYZE (VERBOSE) t', 'ddl'],
    ['GRANT SELECT ON t TO r', 'ddl'],
    ['REFRESH MATERIALIZED VIEW v', 'ddl'],
    ['CLUSTER t', 'ddl'],
    ['VACUUM t', 'write'],
  ])('%s → %s', (sql, expected) => {
    expect(kind(sql)).toBe(expected);
  });

  it.each([
    ["COPY t FROM STDIN", 'denied'],
    ["COPY t TO '/tmp/x'", 'denied'],
    ["LOAD 'auto_explain'", 'denied'],
    ['DO $$ BEGIN END $$', 'denied'],
    ["ALTER SYSTEM SET work_mem = '1MB'", 'denied'],
    ['CREATE EXTENSION dblink', 'denied'],
    ['CREATE OR REPLACE TRUSTED PROCEDURAL LANGUAGE plx', 'denied'],
    ["CREATE SERVER s FOREIGN DATA WRAPPER postgres_fdw", 'denied'],
    ['CREATE FOREIGN DATA WRAPPER w', 'denied'],
    ["CREATE SUBSCRIPTION s CONNECTION 'x' PUBLICATION p", 'denied'],
    ['IMPORT FOREIGN SCHEMA s FROM SERVER x INTO public', 'denied'],
    ["CREATE FUNCTION f() RETURNS int LANGUAGE plpython3u AS 'return 1'", 'denied'],
    ['CREATE OR REPLACE PROCEDURE p() LANGUAGE "plperlu" AS $$ 1 $$', 'denied'],
    ["CREATE FUNCTION f() RETURNS int AS 'lib', 'f' LANGUAGE C", 'denied'],
    ["CREATE FUNCTION f() RETURNS int LANGUAGE $$c$$ AS 'lib', 'f'", 'denied'],
    ["SELECT pg_read_binary_file('/x')", 'denied'],
    ["SELECT * FROM pg_ls_dir('.')", 'denied'],
    ["SELECT pg_stat_file('x')", 'denied'],
    ["SELECT lo_export(1, '/tmp/x')", 'denied'],
    ["SELECT * FROM dblink('x', 'DELETE FROM t') AS r(a int)", 'denied'],
    ['SELECT pg_terminate_backend(0)', 'denied'],
    ['SELECT pg_reload_conf()', 'denied'],
    ["SELECT cursor_to_xml('c', 1, false, false, '')", 'denied'],
    ["SELECT ts_stat('SELECT v FROM t')", 'denied'],
    ['BEGIN', 'unsupported'],
    ['START TRANSACTION', 'unsupported'],
    ['ABORT', 'unsupported'],
    ['SAVEPOINT s', 'unsupported'],
    ['SET TRANSACTION READ WRITE', 'unsupported'],
    ['SET search_path = evil', 'unsupported'],
    ['RESET ALL', 'unsupported'],
    ['DISCARD ALL', 'unsupported'],
    ['PREPARE p AS SELECT 1', 'unsupported'],
    ['EXECUTE p', 'unsupported'],
    ['DEALLOCATE p', 'unsupported'],
    ['LISTEN ch', 'unsupported'],
    ['UNLISTEN *', 'unsupported'],
    ['DECLARE c CURSOR WITH HOLD FOR SELECT 1', 'unsupported'],
    ["SELECT set_config('search_path', 'evil', false)", 'unsupported'],
    ['EXPLAIN ANALYZE EXECUTE p', 'unsupported'],
    ["SELECT 'a\\'; DELETE FROM t; -- '", 'invalid_argument'],
  ])('%s is %s', (sql, code) => {
    expect(refusal(sql)).toBe(code);
  });

  it('untrusted languages and denied functions count only where they are used', () => {
    expect(kind("SELECT language FROM t WHERE language = 'c'")).toBe('read');
    expect(kind("CREATE TABLE t (language text, c int)")).toBe('ddl');
    expect(kind("SELECT 'pg_read_file(1)', dblink_name FROM t")).toBe('read');
  });
});

describe('classifyStatement (MySQL and MariaDB)', () => {
  const kind = kindOn('mysql');
  const refusal = refusalOn('mysql');

  it.each([
    ['SELECT * FROM t', 'read'],
    ['TABLE t', 'read'],
    ['SHOW TABLES', 'read'],
    ['DESCRIBE t', 'read'],
    ['DESC t', 'read'],
    ['EXPLAIN FORMAT=JSON SELECT 1', 'read'],
    ['EXPLAIN ANALYZE SELECT 1', 'read'],
    ['DESCRIBE ANALYZE UPDATE t SET a = 1 WHERE id = 1', 'write'],
    ['EXPLAIN ANALYZE FORMAT=TREE DELETE FROM t WHERE id = 1', 'write'],
    ['ANALYZE SELECT * FROM t', 'read'],
    ['ANALYZE FORMAT=JSON UPDATE t SET a = 1 WHERE id = 1', 'write'],
    ['ANALYZE TABLE t', 'ddl'],
    ['SELECT a INTO @v FROM t LIMIT 1', 'read'],
    ["SELECT INSERT('abc', 1, 1, 'x'), REPLACE('a', 'a', 'b')", 'read'],
    ['SELECT `delete` FROM t', 'read'],
    ['/*!40101 SELECT 1 */', 'read'],
    ["SELECT 'a' 'b', _utf8mb4'c', N'd', x'41'", 'read'],
    ['SELECT * FROM t FOR UPDATE', 'write'],
    ['SELECT * FROM t FOR SHARE', 'write'],
    ['SELECT * FROM t LOCK IN SHARE MODE', 'write'],
    ["SELECT GET_LOCK('x', 1)", 'write'],
    ["SELECT RELEASE_LOCK('x')", 'write'],
    ['SELECT RELEASE_ALL_LOCKS()', 'write'],
    ['SELECT NEXT VALUE FOR s', 'write'],
    ['SELECT NEXTVAL(s)', 'write'],
    ['/*!50000 DELETE FROM t */', 'destructive'],
    ['DELETE FROM t /*! WHERE id = 1 */', 'write'],
    ['REPLACE INTO t VALUES (1)', 'write'],
    ['INSERT t VALUES (1)', 'write'],
    ["DO GET_LOCK('x', 1)", 'write'],
    ['CALL p()', 'write'],
    ['OPTIMIZE TABLE t', 'ddl'],
    ['RENAME TABLE a TO b', 'ddl'],
    ['REVOKE ALL ON t FROM u', 'ddl'],
    ['TRUNCATE TABLE t', 'destructive'],
    ['DROP TABLE t', 'destructive'],
  ])('%s → %s', (sql, expected) => {
    expect(kind(sql)).toBe(expected);
  });

  it.each([
    ["LOAD DATA LOCAL INFILE '/x' INTO TABLE t", 'denied'],
    ["LOAD XML INFILE '/x' INTO TABLE t", 'denied'],
    ['LOAD INDEX INTO CACHE t', 'denied'],
    ["SELECT LOAD_FILE('/x')", 'denied'],
    ["SELECT 1 INTO OUTFILE '/tmp/x'", 'denied'],
    ["SELECT 1 INTO DUMPFILE '/tmp/x'", 'denied'],
    ["SELECT 1 INTO /*!50000 OUTFILE */ '/tmp/x'", 'denied'],
    ["INSTALL PLUGIN p SONAME 'p.so'", 'denied'],
    ["UNINSTALL PLUGIN p", 'denied'],
    ["CREATE AGGREGATE FUNCTION f RETURNS STRING SONAME 'udf.so'", 'denied'],
    ["SELECT sys_exec('id')", 'denied'],
    ["SELECT sys_eval('id')", 'denied'],
    ['SHUTDOWN', 'denied'],
    ['KILL 1', 'denied'],
    ["CHANGE MASTER TO MASTER_HOST = 'x'", 'denied'],
    ["CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'x'", 'denied'],
    ['START SLAVE', 'denied'],
    ['START REPLICA', 'denied'],
    ['STOP SLAVE', 'denied'],
    ['STOP REPLICA', 'denied'],
    ['RESET MASTER', 'denied'],
    ["PURGE BINARY LOGS TO 'x'", 'denied'],
    ["CREATE TABLE t (a int) DATA DIRECTORY = '/tmp'", 'denied'],
    ['BEGIN', 'unsupported'],
    ['START TRANSACTION', 'unsupported'],
    ["XA START 'x'", 'unsupported'],
    ['ROLLBACK', 'unsupported'],
    ['RELEASE SAVEPOINT s', 'unsupported'],
    ['SET autocommit = 0', 'unsupported'],
    ["SET GLOBAL read_only = 0", 'unsupported'],
    ['SET TRANSACTION READ WRITE', 'unsupported'],
    ["PREPARE p FROM 'SELECT 1'", 'unsupported'],
    ['EXECUTE p', 'unsupported'],
    ['DEALLOCATE PREPARE p', 'unsupported'],
    ['USE other', 'unsupported'],
    ['LOCK TABLES t WRITE', 'unsupported'],
    ['UNLOCK TABLES', 'unsupported'],
    ["SELECT 'it\\'s'", 'invalid_argument'],
  ])('%s is %s', (sql, code) => {
    expect(refusal(sql)).toBe(code);
  });
});

describe('the bypass corpus', () => {
  it('has every engine covered by many shapes', () => {
    expect(BYPASS_CORPUS.length).toBeGreaterThanOrEqual(40);
    for (const engine of ENGINES) {
      expect(BYPASS_CORPUS.filter((shape) => shape.engines.includes(engine)).length).toBeGreaterThanOrEqual(15);
    }
  });

  it.each(BYPASS_CORPUS.flatMap(({ engines, sql, why }) => engines.map((engine) => ({ engine, sql, why }))))(
    '$engine: $sql is not a read ($why)',
    ({ engine, sql }) => {
      const code = refusalOn(engine)(sql);
      if (code === undefined) expect(classifyStatement(sql, engine).kind).not.toBe('read');
    },
  );
});

describe('properties', () => {
  /** Self-contained pieces of a read, per engine: none may leave a string, comment or quote open. */
  const readFragments: Record<Engine, string[]> = {
    sqlite: ['"a;b"', '`c;d`', '[e;f]', "'it''s; x'", "'a\\'", '/* ; */', '-- ; x\n', ':p', '$q'],
    postgres: [
      '"a;b"',
      "'it''s; x'",
      "E'\\'; x'",
      '$$ ; $$',
      '$t$ $$; $x$ $t$',
      '/* /* ; */ ; */',
      '-- ; x\n',
      '$1',
      'a$$b',
      '1e5',
      'x::text',
      'arr[1]',
    ],
    mysql: [
      '"a;b"',
      '`c;d`',
      "'it''s; x'",
      "'a\\\\'",
      "'a\\n;'",
      '/* ; */',
      '/*! 1 */',
      '/*+ BKA(t) */',
      '# ; x\n',
      '-- ; x\n',
      '1--1',
      '@v',
    ],
    // PostgreSQL's lexer, DuckDB's parser.
    duckdb: ['"a;b"', "'it''s; x'", '$$ ; $$', '$t$ $$; $x$ $t$', '/* /* ; */ ; */', '-- ; x\n', '$1', '?', 'x::VARCHAR', '[1, 2][1]'],
  };
  const common = ['SELECT', 'FROM', 'WHERE', 'sluice_canary', '1', ',', '(', ')', '=', "'DELETE'", 'AS', 'x'];
  const hidden = ['DELETE FROM sluice_canary', 'DROP TABLE sluice_canary', "UPDATE sluice_canary SET note = 'x'"];

  it('a statement hidden after harmless read fragments is never a read', () => {
    const composition = fc.constantFrom(...ENGINES).chain((engine) => {
      const fragment = fc.constantFrom(...common, ...readFragments[engine]);
      const fragments = fc.array(fragment, { maxLength: 12 });
      const separator = fc.constantFrom(' ', '\n', '\t', ' \r\n ');
      return fc.record({
        engine: fc.constant(engine),
        before: fragments,
        after: fragments,
        separator,
        statement: fc.constantFrom(...hidden),
      });
    });
    fc.assert(
      fc.property(composition, ({ engine, before, after, separator, statement }) => {
        const sql = ['SELECT', ...before, `; ${statement}`, ...after].join(separator);
        const code = refusalOn(engine)(sql);
        if (code === undefined) expect(classifyStatement(sql, engine).kind).not.toBe('read');
      }),
      { numRuns: 2000 },
    );
  });

  it('any text is classified or refused with a ToolError, never a crash', () => {
    const sqlish = fc.array(
      fc.oneof(
        fc.string({ maxLength: 4 }),
        fc.constantFrom("'", '"', '`', '[', ']', '$$', '$t$', '/*', '*/', '/*!', '--', '#', '\\', ';', '\n', 'E', 'U&'),
      ),
      { maxLength: 20 },
    );
    fc.assert(
      fc.property(fc.constantFrom(...ENGINES), sqlish, (engine, parts) => {
        try {
          classifyStatement(parts.join(''), engine);
        } catch (error) {
          expect(error).toBeInstanceOf(SqlRefusal);
          expect(fromDriverError(error)).toBeInstanceOf(ToolError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the destructive rule holds wherever the statement sits (issue 16, finding 6)', () => {
  it.each([
    ['sqlite', 'WITH x AS (SELECT 1) DELETE FROM t'],
    ['sqlite', 'WITH x AS (SELECT 1) UPDATE t SET a = 1'],
    ['sqlite', 'DELETE FROM t WHERE true'],
    ['sqlite', 'DELETE FROM t WHERE 1 = 1'],
    ['sqlite', "DELETE FROM t WHERE 'a' = 'a' OR NULL IS NULL"],
    ['sqlite', 'UPDATE t SET a = 1'],
    ['sqlite', 'UPDATE t SET a = (SELECT b FROM u WHERE u.id = 1)'],
    ['postgres', 'WITH d AS (DELETE FROM t RETURNING *) SELECT count(*) FROM d'],
    ['postgres', 'WITH u AS (UPDATE t SET a = 1 RETURNING *) SELECT 1'],
    ['postgres', 'DELETE FROM t USING (SELECT 1 WHERE x = 1) s'],
    ['postgres', 'DELETE FROM t WHERE (1 = 1)'],
    ['postgres', 'EXPLAIN ANALYZE UPDATE t SET a = 1'],
    ['mysql', 'DELETE t FROM t JOIN u ON t.id = u.id'],
    ['mysql', 'DELETE FROM t LIMIT 10'],
    ['mysql', 'UPDATE t SET a = 1 ORDER BY id'],
    ['mysql', 'WITH x AS (SELECT 1) DELETE FROM t'],
  ] as const)('%s: %s → destructive', (engine, sql) => {
    expect(classifyStatement(sql, engine).kind).toBe('destructive');
  });

  it.each([
    ['sqlite', 'WITH x AS (SELECT 1) DELETE FROM t WHERE id IN x'],
    ['sqlite', 'UPDATE t SET a = 1 WHERE id = 2'],
    ['postgres', 'WITH d AS (DELETE FROM t WHERE id = $1 RETURNING *) SELECT 1'],
    ['postgres', 'DELETE FROM t WHERE id = 1 RETURNING *'],
    ['postgres', 'INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET a = 2'],
    ['postgres', 'SELECT * FROM t FOR UPDATE'],
    ['mysql', 'INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = 2'],
    ['mysql', 'DELETE FROM t WHERE id = 1 LIMIT 1'],
    ['sqlite', "CREATE TABLE c (id INTEGER REFERENCES p (id) ON DELETE CASCADE ON UPDATE CASCADE)"],
  ] as const)('%s: %s → not destructive', (engine, sql) => {
    expect(classifyStatement(sql, engine).kind).not.toBe('destructive');
  });
});

describe('reads refused as writes (issue 29, item 5)', () => {
  /** Data-changing verbs as names: a CTE, a column, an alias, a table, qualified or in a function's arguments. */
  const namedReads = [
    'WITH replace AS (SELECT 1) SELECT * FROM replace',
    'WITH update AS (SELECT 1 AS delete) SELECT delete FROM update',
    'WITH a AS (SELECT 1), insert (x) AS (SELECT 2) SELECT * FROM a, insert',
    'WITH x AS MATERIALIZED (SELECT 1) SELECT 1 AS set, 2 AS copy FROM x',
    'SELECT 1 AS update',
    'SELECT update, delete FROM t WHERE insert = 1 AND replace <> merge ORDER BY update',
    'SELECT t.update, delete.x FROM t JOIN t AS delete ON delete.id = t.id',
    'SELECT * FROM (SELECT 1 AS a) merge',
    'SELECT * FROM (SELECT 1 AS a) AS update',
    'SELECT max(update), coalesce(delete, 0), count(insert) FROM t',
    "SELECT (replace(a, 'x', 'y')) FROM t",
    'SELECT * FROM t WHERE id IN (SELECT update FROM u)',
  ];
  it.each(ENGINES.flatMap((engine) => namedReads.map((sql) => [engine, sql] as const)))('%s: %s → read', (engine, sql) => {
    expect(classifyStatement(sql, engine)).toMatchObject({ kind: 'read' });
  });

  it.each([
    'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) CYCLE n SET is_cycle USING path SELECT * FROM r',
    'WITH RECURSIVE r(n) AS (SELECT 1) SEARCH DEPTH FIRST BY n SET ord CYCLE n SET seen TO true DEFAULT false USING path SELECT update FROM r',
    'EXPLAIN (ANALYZE false) DELETE FROM users',
    'EXPLAIN (ANALYZE off) DELETE FROM users',
    'EXPLAIN (ANALYZE 0) UPDATE t SET a = 1',
    'EXPLAIN (ANALYZE FALSE, COSTS off, FORMAT JSON) DELETE FROM t',
    "EXPLAIN (COSTS false, ANALYZE 'off', BUFFERS) DELETE FROM t",
    'EXPLAIN (ANALYSE "off", VERBOSE, SETTINGS, SUMMARY false) MERGE INTO t USING u ON true WHEN MATCHED THEN DELETE',
    'EXPLAIN (GENERIC_PLAN, ANALYZE OFF) DELETE FROM t WHERE id = $1',
  ])('postgres: %s → read', (sql) => {
    expect(classifyStatement(sql, 'postgres')).toMatchObject({ kind: 'read' });
  });

  it.each([
    'EXPLAIN FORMAT=JSON DELETE FROM t',
    'EXPLAIN EXTENDED SELECT 1',
    'EXPLAIN PARTITIONS SELECT * FROM t',
    'EXPLAIN t',
    'DESC t update',
    'DESCRIBE SELECT * FROM t',
    'EXPLAIN FOR CONNECTION 5',
    'SELECT * FROM (SELECT 1 AS a) merge WHERE `update` = 1',
  ])('mysql: %s → read', (sql) => {
    expect(classifyStatement(sql, 'mysql')).toMatchObject({ kind: 'read' });
  });

  it.each([
    ['PRAGMA journal_mode', 'JOURNAL_MODE'],
    ['PRAGMA main.journal_mode', 'JOURNAL_MODE'],
    ['PRAGMA "temp".foreign_keys', 'FOREIGN_KEYS'],
    ['PRAGMA main.table_info(books)', 'TABLE_INFO'],
    ["PRAGMA index_list('books')", 'INDEX_LIST'],
    ['PRAGMA table_info', 'TABLE_INFO'],
    ['PRAGMA user_version', 'USER_VERSION'],
    ['PRAGMA foreign_keys', 'FOREIGN_KEYS'],
    ['PRAGMA data_version', 'DATA_VERSION'],
    ['PRAGMA integrity_check(10)', 'INTEGRITY_CHECK'],
    ['PRAGMA module_list', 'MODULE_LIST'],
  ])('sqlite: %s only reads', (sql, name) => {
    expect(classifyStatement(sql, 'sqlite')).toEqual({ kind: 'read', verb: 'PRAGMA', reason: `PRAGMA ${name} only reads` });
  });

  it.each([
    'PRAGMA journal_mode = WAL',
    'PRAGMA main.journal_mode = DELETE',
    'PRAGMA journal_mode(WAL)',
    'PRAGMA main.user_version = 7',
    'PRAGMA user_version(7)',
    'PRAGMA foreign_keys = OFF',
    'PRAGMA foreign_keys(0)',
    'PRAGMA optimize',
    'PRAGMA wal_checkpoint',
    'PRAGMA wal_checkpoint(TRUNCATE)',
    'PRAGMA incremental_vacuum',
    'PRAGMA shrink_memory',
    'PRAGMA table_info = books',
    'PRAGMA table_info(books) extra',
    'PRAGMA table_info(books, more)',
    'PRAGMA main.',
    'PRAGMA writable_schema',
  ])('sqlite: %s is a write', (sql) => {
    expect(classifyStatement(sql, 'sqlite').kind).toBe('write');
  });

  /** Writes that look like the reads above: each must stay a write (or destructive) on the engines it names. */
  it.each([
    ['postgres', 'EXPLAIN (ANALYZE true) DELETE FROM t WHERE id = 1', 'write'],
    ['postgres', 'EXPLAIN (ANALYZE) DELETE FROM t', 'destructive'],
    ['postgres', 'EXPLAIN (ANALYZE on) UPDATE t SET a = 1 WHERE id = 1', 'write'],
    ['postgres', 'EXPLAIN (ANALYZE 1) DELETE FROM t WHERE id = 1', 'write'],
    ['postgres', "EXPLAIN (ANALYZE 'on') DELETE FROM t WHERE id = 1", 'write'],
    ['postgres', 'EXPLAIN (ANALYZE "true") DELETE FROM t WHERE id = 1', 'write'],
    ['postgres', 'EXPLAIN (ANALYZE, COSTS false) DELETE FROM t WHERE id = 1', 'write'],
    ['postgres', 'EXPLAIN (COSTS false, ANALYZE) DELETE FROM t WHERE id = 1', 'write'],
    ['postgres', 'EXPLAIN (ANALYZE false, ANALYZE true) DELETE FROM t WHERE id = 1', 'write'],
    // PostgreSQL takes the last one and would only plan; any ANALYZE that runs counts here.
    ['postgres', 'EXPLAIN (ANALYZE true, ANALYZE false) DELETE FROM t WHERE id = 1', 'write'],
    // Values PostgreSQL refuses, or that this does not read as false, count as running.
    ['postgres', 'EXPLAIN (ANALYZE no) DELETE FROM t WHERE id = 1', 'write'],
    ['postgres', 'EXPLAIN (ANALYZE -0) DELETE FROM t WHERE id = 1', 'write'],
    ['postgres', "EXPLAIN (ANALYZE E'off') DELETE FROM t WHERE id = 1", 'write'],
    ['postgres', "EXPLAIN (ANALYZE '0') DELETE FROM t WHERE id = 1", 'write'],
    ['postgres', 'EXPLAIN (ANALYZE false, SOME_NEW_OPTION) DELETE FROM t WHERE id = 1', 'write'],
    ['postgres', 'EXPLAIN (FORMAT analyze) DELETE FROM t WHERE id = 1', 'write'],
    ['postgres', 'EXPLAIN (ANALYZE false,) DELETE FROM t WHERE id = 1', 'write'],
    ['postgres', 'EXPLAIN ANALYZE VERBOSE DELETE FROM t WHERE id = 1', 'write'],
    ['postgres', 'WITH update AS (SELECT 1) UPDATE t SET a = 1 WHERE id = 1', 'write'],
    ['postgres', 'WITH delete AS (SELECT 1) DELETE FROM t', 'destructive'],
    ['postgres', 'WITH replace AS (SELECT 1), d AS NOT MATERIALIZED (DELETE FROM t WHERE id = 1 RETURNING *) SELECT * FROM replace', 'write'],
    ['postgres', 'WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x', 'write'],
    ['postgres', 'WITH a AS (WITH b AS (SELECT 1) DELETE FROM t RETURNING *) SELECT * FROM a', 'destructive'],
    ['postgres', 'WITH RECURSIVE r(n) AS (SELECT 1) CYCLE n SET c USING p DELETE FROM t', 'destructive'],
    ['postgres', 'WITH RECURSIVE r(n) AS (SELECT 1) SEARCH BREADTH FIRST BY n SET o UPDATE t SET a = 1 WHERE id = 1', 'write'],
    // A WITH this cannot follow: every data-changing verb counts, wherever it is.
    ['postgres', "WITH RECURSIVE r(n) AS (SELECT 1) CYCLE n SET c TO 'a'::text DEFAULT 'b' USING p DELETE FROM t WHERE id = 1", 'write'],
    ['postgres', 'SELECT now()::timestamp WITH TIME ZONE AS update', 'write'],
    ['sqlite', 'WITH replace AS (SELECT 1) REPLACE INTO t SELECT * FROM replace', 'write'],
    ['sqlite', 'WITH update AS (SELECT 1) UPDATE OR REPLACE t SET a = 1 WHERE id = 1', 'write'],
    ['sqlite', 'WITH x(update) AS (SELECT 1) INSERT INTO t SELECT update FROM x', 'write'],
    ['mysql', 'WITH x AS (SELECT 1) UPDATE (t) SET a = 1 WHERE id = 1', 'write'],
    ['mysql', 'WITH x AS (SELECT 1) DELETE t FROM t JOIN x WHERE t.id = 1', 'write'],
    ['mysql', 'SELECT a FROM t GROUP BY a WITH ROLLUP UNION SELECT delete FROM u', 'write'],
    ['duckdb', 'EXPLAIN (ANALYZE false) DELETE FROM t', 'destructive'],
    ['duckdb', 'EXPLAIN (ANALYZE off) DELETE FROM t WHERE id = 1', 'write'],
    ['duckdb', 'EXPLAIN (ANALYZE 0) DELETE FROM t WHERE id = 1', 'write'],
  ] as const)('%s: %s → %s', (engine, sql, expected) => {
    expect(classifyStatement(sql, engine).kind).toBe(expected);
  });

  it('a data-changing statement after a WITH list of keyword names is never a read; a SELECT there is', () => {
    const name = fc.constantFrom('update', 'delete', 'replace', 'merge', 'insert', 'x', '"q"');
    const cte = fc.record({
      name,
      columns: fc.option(fc.constantFrom('(update)', '(a, delete)'), { nil: '' }),
      materialized: fc.constantFrom('', 'MATERIALIZED ', 'NOT MATERIALIZED '),
    });
    const withList = fc.record({ recursive: fc.boolean(), ctes: fc.array(cte, { minLength: 1, maxLength: 4 }) });
    const main = fc.constantFrom(
      "DELETE FROM sluice_canary WHERE id = 1",
      "UPDATE sluice_canary SET note = 'x' WHERE id = 1",
      "INSERT INTO sluice_canary (id) VALUES (9)",
      "REPLACE INTO sluice_canary (id) VALUES (9)",
      "MERGE INTO sluice_canary USING u ON sluice_canary.id = u.id WHEN MATCHED THEN DELETE",
    );
    fc.assert(
      fc.property(fc.constantFrom(...ENGINES), withList, main, (engine, { recursive, ctes }, statement) => {
        const list = ctes.map((c) => `${c.name}${c.columns} AS ${c.materialized}(SELECT 1 AS update)`).join(', ');
        const head = `WITH ${recursive ? 'RECURSIVE ' : ''}${list}`;
        expect(classifyStatement(`${head} ${statement}`, engine).kind).not.toBe('read');
        expect(classifyStatement(`${head} SELECT update FROM ${ctes[0]!.name}`, engine).kind).toBe('read');
      }),
      { numRuns: 1000 },
    );
  });
});
