import { describe, expect, it } from 'vitest';
import { selectRows, tokenRowSelection } from '../../../src/sql/countQuery.js';
import { postgresRowSelection } from '../../../src/db/engines/postgres/postgresRowSelection.js';

/**
 * Which UPDATE and DELETE statements are previewed, and the SELECT made from each: the statement's own
 * table and condition, never anything that could read otherwise (docs/console.md, "What a dialog shows").
 */

const counted = (selection: ReturnType<typeof tokenRowSelection> | Awaited<ReturnType<typeof postgresRowSelection>>) =>
  'refused' in selection ? selection : { sql: selectRows(selection, 'count(*)'), params: selection.params };

describe('the count made from an UPDATE or DELETE on DuckDB (numbered placeholders)', () => {
  const on = (sql: string, params: unknown[] = []) => counted(tokenRowSelection(sql, 'duckdb', params));

  it('keeps the condition’s $n placeholders, renumbered from 1, with the values they name', () => {
    expect(on('UPDATE books SET title = $1, price = $2 WHERE author_id = $3 AND price > $2', ['x', 20, 1])).toEqual({
      sql: 'SELECT count(*) FROM books WHERE author_id = $1 AND price > $2',
      params: [1, 20],
    });
    expect(on('DELETE FROM books WHERE author_id = $1 RETURNING id', [3])).toEqual({ sql: 'SELECT count(*) FROM books WHERE author_id = $1', params: [3] });
    expect(on('UPDATE books SET title = $1', ['x'])).toEqual({ sql: 'SELECT count(*) FROM books', params: [] });
    // DuckDB takes ? in order too.
    expect(on('UPDATE books SET title = ? WHERE id = ?', ['x', 4])).toEqual({ sql: 'SELECT count(*) FROM books WHERE id = ?', params: [4] });
  });

  it('refuses a placeholder naming a value not given, ? beside $n, and named ones', () => {
    expect(on('DELETE FROM books WHERE id = $2', [1])).toEqual({ refused: 'the values do not match the placeholders' });
    expect(on('DELETE FROM books WHERE id = $0', [1])).toEqual({ refused: 'the values do not match the placeholders' });
    expect(on('DELETE FROM books WHERE id = ? OR id = $1', [1])).toEqual({ refused: 'the values do not match the placeholders' });
    expect(on('DELETE FROM books WHERE id = $id', [1])).toEqual({ refused: 'named placeholders and variables are not previewed' });
  });
});

describe('the count made from an UPDATE or DELETE (SQLite and MySQL)', () => {
  const on = (sql: string, params: unknown[] = [], engine: 'sqlite' | 'mysql' = 'sqlite') => counted(tokenRowSelection(sql, engine, params));

  it('keeps the table, its alias and the condition as written, with the condition’s own values', () => {
    expect(on('UPDATE books SET title = ?, price = ? WHERE author_id = ? AND "Title" LIKE ?', ['x', 2, 7, 'a%'])).toEqual({
      sql: 'SELECT count(*) FROM books WHERE author_id = ? AND "Title" LIKE ?',
      params: [7, 'a%'],
    });
    expect(on('DELETE FROM main.books AS b WHERE b.id IN (SELECT id FROM books WHERE price > ?) RETURNING *;', [9])).toEqual({
      sql: 'SELECT count(*) FROM main.books AS b WHERE b.id IN (SELECT id FROM books WHERE price > ?)',
      params: [9],
    });
    expect(on('UPDATE `Books` b SET price = (SELECT 1 FROM x WHERE y = ?) WHERE id = ?', [1, 2], 'mysql')).toEqual({
      sql: 'SELECT count(*) FROM `Books` b WHERE id = ?',
      params: [2],
    });
    expect(on('DELETE FROM books WHERE id = 1 -- the one\n', [], 'mysql')).toEqual({ sql: 'SELECT count(*) FROM books WHERE id = 1', params: [] });
  });

  it('counts every row when there is no WHERE', () => {
    expect(on('DELETE FROM books')).toEqual({ sql: 'SELECT count(*) FROM books', params: [] });
    expect(on('UPDATE books SET price = ?', [1])).toEqual({ sql: 'SELECT count(*) FROM books', params: [] });
  });

  it('refuses what it does not fully understand', () => {
    const refusals = [
      ['WITH old AS (SELECT id FROM books) DELETE FROM books WHERE id IN (SELECT id FROM old)', []],
      ['UPDATE OR REPLACE books SET price = 1 WHERE id = 1', []],
      ['UPDATE books SET price = 1 FROM authors WHERE authors.id = books.author_id', []],
      ['DELETE FROM books WHERE id > 1 ORDER BY id LIMIT 2', []],
      ['UPDATE books, authors SET price = 1 WHERE authors.id = books.author_id', []],
      ['UPDATE books JOIN authors ON authors.id = books.author_id SET price = 1 WHERE born > 1900', []],
      ['DELETE books FROM books JOIN authors ON authors.id = books.author_id', []],
      ['DELETE FROM books USING books, authors WHERE authors.id = books.author_id', []],
      ['DELETE LOW_PRIORITY FROM books WHERE id = 1', []],
      ['DELETE FROM books INDEXED BY books_author_idx WHERE author_id = 1', []],
      ['DELETE FROM books WHERE id = ?1', [1]],
      ['DELETE FROM books WHERE id = :id', [1]],
      ['DELETE FROM books WHERE id = @id', []],
      ['DELETE FROM books WHERE id = ?', []],
      ['INSERT INTO books (id) VALUES (1)', []],
    ] as const;
    for (const [sql, params] of refusals) expect(on(sql, [...params]), sql).toMatchObject({ refused: expect.any(String) });
  });

  it('refuses a cut that would read otherwise: MySQL executable comments', () => {
    expect(on('DELETE FROM books WHERE id = 1 /*!99999 OR 1 = 1 */', [], 'mysql')).toEqual({
      refused: 'the statement cannot be cut without changing its meaning',
    });
    expect(on('DELETE FROM books WHERE id = 1 /*!99999 OR 1 = 1 */ RETURNING id', [], 'mysql')).toMatchObject({ refused: expect.any(String) });
  });
});

describe('the count made from an UPDATE or DELETE (PostgreSQL, with its own parser)', () => {
  const on = async (sql: string, params: unknown[] = []) => counted(await postgresRowSelection(sql, params));

  it('keeps ONLY, the schema and the alias, and renumbers the condition’s values from $1', async () => {
    expect(await on('UPDATE ONLY public.books AS b SET title = $1 WHERE b.author_id = $3 AND b.price > $2 RETURNING b.id', ['x', 10, 2])).toEqual({
      sql: 'SELECT count(*) FROM ONLY public.books AS b WHERE b.author_id = $1 AND b.price > $2',
      params: [2, 10],
    });
    expect(await on('DELETE FROM books WHERE id = ANY(ARRAY[$1, $1]::int[]) /* note */', [4])).toEqual({
      sql: 'SELECT count(*) FROM books WHERE id = ANY(ARRAY[$1, $1]::int[])',
      params: [4],
    });
    expect(await on("DELETE FROM books WHERE title = $$it's; WHERE$$")).toEqual({ sql: "SELECT count(*) FROM books WHERE title = $$it's; WHERE$$", params: [] });
    expect(await on('DELETE FROM books')).toEqual({ sql: 'SELECT count(*) FROM books', params: [] });
  });

  it('cuts at the characters the lexer means, past text beyond ASCII (it reports bytes of UTF-8)', async () => {
    expect(await on("UPDATE bücher SET titel = 'ü𝔢' WHERE name = 'Ω' AND id = $1", ['x'])).toEqual({
      sql: "SELECT count(*) FROM bücher WHERE name = 'Ω' AND id = $1",
      params: ['x'],
    });
  });

  it('refuses WITH, FROM, USING, WHERE CURRENT OF, and a value bound both inside and outside the condition', async () => {
    const refusals = [
      ['WITH x AS (SELECT 1) DELETE FROM books WHERE id IN (SELECT * FROM x)', []],
      ['UPDATE books SET price = 1 FROM authors WHERE authors.id = books.author_id', []],
      ['DELETE FROM books USING authors WHERE authors.id = books.author_id', []],
      ['DELETE FROM books WHERE CURRENT OF c', []],
      ['UPDATE books SET title = $1 WHERE title = $1', ['x']],
      ['DELETE FROM books WHERE id = $2', [1]],
      ['INSERT INTO books (id) VALUES (1)', []],
      ['MERGE INTO books b USING authors a ON a.id = b.author_id WHEN MATCHED THEN DELETE', []],
    ] as const;
    for (const [sql, params] of refusals) expect(await on(sql, [...params]), sql).toMatchObject({ refused: expect.any(String) });
  });
});
