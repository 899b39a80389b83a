import { describe, expect, it } from 'vitest';
import { classifyStatement } from '../../../src/sql/classify.js';
import { ConfigError, newConnection, parseConnection } from '../../../src/db/connections/savedConnections.js';
import { ToolError } from '../../../src/core/errors.js';
import { fromDriverError } from '../../../src/capabilities/dbErrors.js';
import { duckdbTargetOf } from '../../../src/cli/duckdbTarget.js';

/** DuckDB's classifier (PostgreSQL's lexer, DuckDB's verbs and refusals) and its saved connections. */

const kind = (sql: string) => classifyStatement(sql, 'duckdb').kind;
const refusal = (sql: string) => {
  try {
    classifyStatement(sql, 'duckdb');
    return undefined;
  } catch (error) {
    return (fromDriverError(error) as ToolError).code;
  }
};

describe('classifying DuckDB statements', () => {
  it.each([
    'SELECT 1',
    'FROM books SELECT id',
    "SELECT * FROM read_parquet('/data/x.parquet')",
    'SHOW TABLES',
    'DESCRIBE books',
    'SUMMARIZE books',
    'WITH t AS (SELECT 1) SELECT * FROM t',
    'EXPLAIN SELECT 1',
    'WITH update AS (SELECT 1 AS delete) SELECT delete FROM update',
    'SELECT * FROM (SELECT 1 AS a) merge',
  ])('%s is a read', (sql) => {
    expect(kind(sql)).toBe('read');
  });

  it.each([
    ["INSERT INTO t VALUES (1)", 'write'],
    ['PRAGMA enable_profiling', 'write'],
    ['CHECKPOINT', 'write'],
    ["CALL pragma_table_info('t')", 'write'],
    ["SELECT nextval('s')", 'write'],
    ['CREATE TABLE t (n INTEGER)', 'ddl'],
    ['DROP TABLE t', 'destructive'],
    ['DELETE FROM t', 'destructive'],
    ['EXPLAIN ANALYZE DELETE FROM t WHERE n = 1', 'write'],
    // DuckDB runs the statement whatever value its ANALYZE option has (checked on 1.5).
    ['EXPLAIN (ANALYZE false) DELETE FROM t', 'destructive'],
    ['EXPLAIN (ANALYZE off) DELETE FROM t WHERE n = 1', 'write'],
    ['PRAGMA table_info(t)', 'write'],
  ])('%s is %s', (sql, expected) => {
    expect(kind(sql)).toBe(expected);
  });

  it.each([
    ["ATTACH 'x.duckdb'", 'denied'],
    ['DETACH x', 'denied'],
    ["COPY t TO 'out.csv'", 'denied'],
    ["COPY t FROM 'in.csv'", 'denied'],
    ["EXPORT DATABASE 'dump'", 'denied'],
    ["IMPORT DATABASE 'dump'", 'denied'],
    ['INSTALL httpfs', 'denied'],
    ['FORCE INSTALL httpfs', 'denied'],
    ['LOAD httpfs', 'denied'],
    ["CREATE SECRET s (TYPE s3, KEY_ID 'k', SECRET 'v')", 'denied'],
    ["CREATE OR REPLACE PERSISTENT SECRET s (TYPE s3)", 'denied'],
    ["SELECT * FROM query('DROP TABLE t')", 'denied'],
    ["SELECT * FROM \"query_table\"('t')", 'denied'],
    ["SELECT getenv('HOME')", 'denied'],
    ["SET allowed_directories = ['/']", 'unsupported'],
    ['RESET threads', 'unsupported'],
    ['USE other', 'unsupported'],
    ['BEGIN TRANSACTION', 'unsupported'],
    ['SELECT 1; SELECT 2', 'invalid_argument'],
  ])('%s is refused: %s', (sql, code) => {
    expect(refusal(sql)).toBe(code);
  });

  it('reads quotes as PostgreSQL does: a keyword in a dollar quote or nested comment hides nothing', () => {
    expect(kind("SELECT $$ ; DELETE FROM t $$ AS s")).toBe('read');
    expect(kind('SELECT 1 /* a /* nested */ ; still a comment */')).toBe('read');
  });
});

describe('DuckDB saved connections', () => {
  const settings = { id: 'dk', name: 'Lake' };

  it('keeps the path and the files directory', () => {
    expect(parseConnection({ ...settings, engine: 'duckdb', path: '/data/lake.duckdb', filesDir: '/data/files' }, 'c')).toEqual({
      ...settings,
      engine: 'duckdb',
      path: '/data/lake.duckdb',
      filesDir: '/data/files',
      externalAccess: 'readOnly',
      aiPolicy: 'askEachTime',
    });
    expect(newConnection({ name: 'Scratch', engine: 'duckdb', path: ':memory:' })).toMatchObject({ id: 'scratch', engine: 'duckdb', path: ':memory:' });
  });

  it.each([
    [{ engine: 'duckdb', path: '' }, 'c.path must be a file path or :memory:'],
    [{ engine: 'duckdb', path: '/a.duckdb', filesDir: 'relative' }, 'c.filesDir must be an absolute directory path, on DuckDB connections only'],
    [{ engine: 'sqlite', path: '/a.sqlite', filesDir: '/files' }, 'c.filesDir must be an absolute directory path, on DuckDB connections only'],
    [{ engine: 'oracle', path: '/a' }, 'c.engine must be "sqlite", "postgres", "mysql" or "duckdb"'],
  ])('refuses %j', (fields, message) => {
    expect(() => parseConnection({ ...settings, ...fields }, 'c')).toThrow(new ConfigError(message));
  });

  it('refuses a relative path from a person', () => {
    expect(() => newConnection({ name: 'Lake', engine: 'duckdb', path: 'lake.duckdb' })).toThrow(new ConfigError('path must be an absolute file path or :memory:'));
  });

  it('--duckdb PATH [--files-dir DIR] make both absolute; --files-dir alone is a usage error', () => {
    expect(duckdbTargetOf({ duckdb: '/x/lake.duckdb', 'files-dir': '/x/files/' })).toEqual({ engine: 'duckdb', path: '/x/lake.duckdb', filesDir: '/x/files' });
    expect(duckdbTargetOf({ duckdb: ':memory:' })).toEqual({ engine: 'duckdb', path: ':memory:' });
    expect(duckdbTargetOf({})).toEqual({});
    expect(() => duckdbTargetOf({ 'files-dir': '/x' })).toThrow('--files-dir goes with --duckdb PATH');
  });
});
