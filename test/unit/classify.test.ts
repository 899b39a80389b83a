import { describe, expect, it } from 'vitest';
import { classifyStatement } from '../../src/db/classify.js';
import { ToolError } from '../../src/protocol/errors.js';

const kind = (sql: string) => classifyStatement(sql).kind;
const refusal = (sql: string) => {
  try {
    classifyStatement(sql);
  } catch (error) {
    if (error instanceof ToolError) return error.code;
    throw error;
  }
  return undefined;
};

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
    ['PRAGMA user_version = 3', 'write'],
    ['PRAGMA journal_mode', 'write'],
    ['INSERT INTO t VALUES (1)', 'write'],
    ["UPDATE t SET a = 'DROP' WHERE id = 1", 'write'],
    ['DELETE FROM t WHERE id = 1', 'write'],
    ['WITH x AS (SELECT 1) DELETE FROM t WHERE id IN x', 'write'],
    ['REPLACE INTO t VALUES (1)', 'write'],
    ['CREATE TABLE t (a)', 'ddl'],
    ['ALTER TABLE t ADD COLUMN b', 'ddl'],
    ['DROP TABLE t', 'destructive'],
    ['DELETE FROM t', 'destructive'],
    ['FROBNICATE everything', 'write'],
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
    expect(refusal('BEGIN')).toBe('unsupported');
    expect(refusal('COMMIT')).toBe('unsupported');
  });
});
