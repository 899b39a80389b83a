import { describe, expect, it } from 'vitest';
import { postgresColumnReads } from '../../../src/db/engines/postgres/postgresColumnReads.js';

/** Where a PostgreSQL statement reads which columns, from libpg-query's tree (issue 30). */
describe('postgresColumnReads', () => {
  it('places the outer select list, GROUP BY, an equality and a filter', async () => {
    expect(await postgresColumnReads("SELECT u.email AS e, count(*) FROM users u JOIN orders o ON u.email = o.buyer WHERE note LIKE 'a%' GROUP BY u.email")).toEqual({
      reads: [
        { column: 'EMAIL', place: 'output' },
        { column: 'EMAIL', place: 'equality' },
        { column: 'EMAIL', place: 'equality', partner: 'BUYER' },
        { column: 'BUYER', place: 'equality', partner: 'EMAIL' },
        { column: 'NOTE', place: 'other' },
      ],
      hidden: [],
      outputs: [[{ kind: 'column', column: 'EMAIL' }, { kind: 'expression' }]],
      positions: [],
    });
  });

  it.each([
    ['SELECT row_to_json(u) FROM users u', 'row_to_json(), which reads what it is given by name'],
    ['SELECT (u).email FROM users u', 'the whole row of u'],
    ['SELECT x FROM (SELECT * FROM users) s', 'a * outside the outer select list'],
    ["DO $$ BEGIN PERFORM 1; END $$", 'code run by the server (a DO block, a function or procedure body), which Sluice cannot read for private columns'],
    ['COPY users TO STDOUT', 'COPY of whole tables, whose columns it does not name'],
    ['SELECT * FROM pg_stats', 'pg_stats, which shows values of other columns'],
    ['SELECT a FROM t NATURAL JOIN u', 'a NATURAL join, which compares columns it does not name'],
  ])('%s reads what it does not name: %s', async (sql, hidden) => {
    expect((await postgresColumnReads(sql)).hidden[0]).toBe(hidden);
  });

  it('counts RETURNING as output, positions, aliases, and a renamed column as a read', async () => {
    expect((await postgresColumnReads('UPDATE users SET name = $1 WHERE id = 2 RETURNING email')).outputs).toEqual([[{ kind: 'column', column: 'EMAIL' }]]);
    expect((await postgresColumnReads('SELECT email, id FROM users ORDER BY 1')).positions).toEqual([1]);
    expect((await postgresColumnReads("SELECT 1 FROM (SELECT 'x' AS login) s(buyer)")).reads).toEqual([
      { column: 'LOGIN', place: 'alias' },
      { column: 'BUYER', place: 'alias' },
    ]);
    expect((await postgresColumnReads('ALTER TABLE users RENAME COLUMN email TO contact')).reads).toEqual([{ column: 'EMAIL', place: 'other' }]);
  });
});
