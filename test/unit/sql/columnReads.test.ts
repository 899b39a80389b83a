import { describe, expect, it } from 'vitest';
import { tokenColumnReads } from '../../../src/sql/columnReads.js';

/**
 * Where a statement reads which columns, from the tokens (issue 30: SQLite, MySQL, DuckDB): the outer
 * select list is output, an equality of two plain columns is equality, anything else is other; what
 * reads columns without naming them is hidden.
 */
describe('tokenColumnReads', () => {
  it('places the outer select list, an equality and a filter', () => {
    expect(tokenColumnReads("SELECT u.email AS e, name FROM users u JOIN orders o ON u.email = o.buyer WHERE note LIKE 'a%'", 'sqlite')).toEqual({
      reads: [
        { column: 'EMAIL', place: 'output' },
        { column: 'NAME', place: 'output' },
        { column: 'EMAIL', place: 'equality', partner: 'BUYER' },
        { column: 'BUYER', place: 'equality', partner: 'EMAIL' },
        { column: 'NOTE', place: 'other' },
      ],
      hidden: [],
      outputs: [[{ kind: 'column', column: 'EMAIL' }, { kind: 'column', column: 'NAME' }]],
      positions: [],
    });
  });

  it('keeps each arm of a UNION ALL, and none when a set operator compares rows', () => {
    expect(tokenColumnReads('SELECT id, email FROM a UNION ALL SELECT id, upper(name) FROM b', 'mysql').outputs).toEqual([
      [{ kind: 'column', column: 'ID' }, { kind: 'column', column: 'EMAIL' }],
      [{ kind: 'column', column: 'ID' }, { kind: 'expression' }],
    ]);
    const compared = tokenColumnReads('SELECT email FROM a INTERSECT SELECT email FROM b', 'mysql');
    expect([compared.outputs, compared.reads.map((r) => r.place)]).toEqual([[], ['other', 'other']]);
  });

  it.each([
    ['SELECT * FROM (SELECT * FROM users) s', 'a * outside the outer select list'],
    ['SELECT u FROM users u', 'the whole row of u'],
    ["SELECT * FROM query('SELECT 1')", 'query(), which reads what it is given by name'],
    ['SELECT * FROM users u(a, b)', 'the column names given to u'],
    ['SELECT COLUMNS(*) FROM users', 'columns(), which reads what it is given by name'],
    ['SELECT * FROM sqlite_stat1', 'sqlite_stat1, which shows values of other columns'],
    ['SELECT a FROM t NATURAL JOIN u', 'a NATURAL join, which compares columns it does not name'],
    ['SELECT a, b FROM t ORDER BY ALL', 'ORDER BY ALL, which uses every output column'],
  ])('%s reads what it does not name: %s', (sql, hidden) => {
    expect(tokenColumnReads(sql, 'duckdb').hidden[0]).toBe(hidden);
  });

  it('reads the column inside EXTRACT(… FROM …), counts positions, and leaves written columns out', () => {
    const extract = tokenColumnReads('SELECT EXTRACT(YEAR FROM born) FROM people ORDER BY 1', 'mysql');
    expect([extract.reads, extract.positions]).toEqual([[{ column: 'YEAR', place: 'other' }, { column: 'BORN', place: 'other' }], [1]]);
    expect(tokenColumnReads("INSERT INTO people (id, email) VALUES (1, 'x')", 'sqlite').reads).toEqual([]);
    expect(tokenColumnReads("UPDATE people SET email = 'x', name = email WHERE id = 1", 'sqlite').reads).toEqual([{ column: 'EMAIL', place: 'other' }, { column: 'ID', place: 'other' }]);
    expect(tokenColumnReads("SELECT 'x' AS email FROM people WHERE id IN (SELECT 'y' AS login)", 'sqlite').reads).toEqual([
      { column: 'ID', place: 'other' },
      { column: 'LOGIN', place: 'alias' },
    ]);
  });
});
