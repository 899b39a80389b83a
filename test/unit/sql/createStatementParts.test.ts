import { describe, expect, it } from 'vitest';
import { indexDefinitionParts, keyPartColumn, triggerHeader, viewQuery } from '../../../src/sql/createStatementParts.js';

/** The parts of CREATE statements read where a catalog keeps only the statement (SQLite, DuckDB). */

describe('indexDefinitionParts', () => {
  it('splits key parts at top-level commas, expressions and quoted names included', () => {
    expect(indexDefinitionParts('CREATE INDEX "a(b" ON t (x, lower(y || \',\'), "z, w" DESC)', 'sqlite')).toEqual({
      parts: ['x', "lower(y || ',')", '"z, w" DESC'],
      predicate: null,
    });
  });

  it('gives a partial index’s predicate, without a closing semicolon', () => {
    expect(indexDefinitionParts('CREATE INDEX i ON t(a) WHERE a > 0 AND (b IS NULL);', 'duckdb')).toEqual({
      parts: ['a'],
      predicate: 'a > 0 AND (b IS NULL)',
    });
  });
});

describe('keyPartColumn', () => {
  it('is the column a part names, unquoted, past its order; an expression as written', () => {
    expect(keyPartColumn('"name"', 'duckdb')).toBe('name');
    expect(keyPartColumn('"a ""b"""', 'duckdb')).toBe('a "b"');
    expect(keyPartColumn('title DESC', 'sqlite')).toBe('title');
    expect(keyPartColumn('`select` ASC', 'mysql')).toBe('select');
    expect(keyPartColumn('(lower(title))', 'duckdb')).toBe('(lower(title))');
    expect(keyPartColumn('title COLLATE nocase', 'sqlite')).toBe('title COLLATE nocase');
  });
});

describe('viewQuery', () => {
  it('is the text after the first top-level AS, past a column list', () => {
    expect(viewQuery('CREATE VIEW v (a, b) AS SELECT 1 AS a, 2 AS b', 'sqlite')).toBe('SELECT 1 AS a, 2 AS b');
    expect(viewQuery('CREATE VIEW "as" AS SELECT 1;', 'duckdb')).toBe('SELECT 1');
  });
});

describe('triggerHeader', () => {
  it.each([
    ['CREATE TRIGGER t AFTER UPDATE OF a ON x BEGIN SELECT 1; END', { timing: 'AFTER', events: ['UPDATE'] }],
    ['CREATE TEMP TRIGGER IF NOT EXISTS main."before" INSTEAD OF DELETE ON v BEGIN SELECT 1; END', { timing: 'INSTEAD OF', events: ['DELETE'] }],
    ['CREATE TRIGGER t INSERT ON x BEGIN SELECT 1; END', { timing: 'BEFORE', events: ['INSERT'] }],
  ])('%s', (sql, header) => {
    expect(triggerHeader(sql, 'sqlite')).toEqual(header);
  });
});
