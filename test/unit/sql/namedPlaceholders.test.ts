import { describe, expect, it } from 'vitest';
import { bindNamedPlaceholders } from '../../../src/sql/namedPlaceholders.js';

/** Custom tools' named placeholders as each engine takes them (issue 32). */
describe('bindNamedPlaceholders', () => {
  const sql = "SELECT :a, ':b' AS \"x:y\", -- :c\n v::text FROM t WHERE a = :a AND b = :b2";

  it('gives ? engines one ? per occurrence, in order, leaving strings, quoted names, comments and casts alone', () => {
    for (const engine of ['sqlite', 'mysql'] as const) {
      expect(bindNamedPlaceholders(sql, engine)).toEqual({
        sql: "SELECT ?, ':b' AS \"x:y\", -- :c\n v::text FROM t WHERE a = ? AND b = ?",
        order: ['a', 'a', 'b2'],
      });
    }
  });

  it('numbers each name once on PostgreSQL and DuckDB', () => {
    for (const engine of ['postgres', 'duckdb'] as const) {
      expect(bindNamedPlaceholders(sql, engine)).toEqual({
        sql: "SELECT $1, ':b' AS \"x:y\", -- :c\n v::text FROM t WHERE a = $1 AND b = $2",
        order: ['a', 'b2'],
      });
    }
  });

  it('refuses text the lexer cannot read', () => {
    expect(() => bindNamedPlaceholders("SELECT 'open", 'sqlite')).toThrow(expect.objectContaining({ kind: 'invalid_argument' }));
  });
});
