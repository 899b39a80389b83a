import { describe, expect, it } from 'vitest';
import { SQL_DIALECTS } from '../../../src/sql/dialects.js';
import { escapingCall, insertTried, rowByKey, rowsBefore, selectedTable } from '../../../src/sql/rehearsalSql.js';

/** How a write is tried before consent (capabilities/exactEffect.ts): the SQL text that decides and builds the try. */
describe('the SQL of a tried write', () => {
  it('finds a call whose effect escapes the transaction, as written, and never a name that is not called', () => {
    expect(escapingCall("UPDATE t SET id = nextval('s')", 'postgres')).toBe('nextval');
    expect(escapingCall('UPDATE t SET v = RAND() WHERE id = 1', 'mysql')).toBe('RAND');
    expect(escapingCall('DELETE FROM t WHERE pg_sleep (1) IS NOT NULL', 'postgres')).toBe('pg_sleep');
    expect(escapingCall('UPDATE t SET random = 1, "nextval" = 2', 'postgres')).toBeUndefined();
    expect(escapingCall("UPDATE t SET note = 'random()' -- sleep(1)", 'sqlite')).toBeUndefined();
    expect(escapingCall('UPDATE t SET at = now()', 'postgres')).toBeUndefined();
  });

  it('tries a plain INSERT with RETURNING * in place of its final semicolon, and refuses an upsert or its own RETURNING', () => {
    expect(insertTried('INSERT INTO s.t (a) VALUES (?);', 'sqlite')).toEqual({ table: { target: 's.t', schema: 's', name: 't' }, sql: 'INSERT INTO s.t (a) VALUES (?) RETURNING *' });
    expect(insertTried('INSERT OR IGNORE INTO "My ""T""" SELECT 1', 'sqlite')).toEqual({
      table: { target: '"My ""T"""', schema: undefined, name: 'My "T"' },
      sql: 'INSERT OR IGNORE INTO "My ""T""" SELECT 1 RETURNING *',
    });
    expect(insertTried('INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING', 'postgres')).toEqual({ refused: 'with ON CONFLICT it may change rows already there' });
    expect(insertTried('INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE v = 2', 'mysql')).toEqual({ refused: 'with ON DUPLICATE it may change rows already there' });
    expect(insertTried('INSERT OR REPLACE INTO t VALUES (1)', 'sqlite')).toEqual({ refused: 'the INSERT is not a plain INSERT INTO' });
    expect(insertTried('INSERT INTO t VALUES (1) RETURNING id', 'duckdb')).toEqual({ refused: 'it has a RETURNING clause of its own' });
  });

  it('reads an UPDATE or DELETE target, and builds the reads before and after in each dialect', () => {
    const selection = { target: 'shop.books b', condition: 'b.author_id = $1', params: [3] };
    expect(selectedTable(selection, 'postgres')).toEqual({ target: 'shop.books b', schema: 'shop', name: 'books' });
    expect(rowsBefore(selection, ['id', 'isbn'], SQL_DIALECTS.postgres)).toBe('SELECT * FROM shop.books b WHERE b.author_id = $1 ORDER BY "id", "isbn"');
    expect(rowByKey('shop.books b', ['id', 'isbn'], SQL_DIALECTS.postgres)).toBe('SELECT * FROM shop.books b WHERE "id" = $1 AND "isbn" = $2');
    expect(rowByKey('`books`', ['id'], SQL_DIALECTS.mysql)).toBe('SELECT * FROM `books` WHERE `id` = ?');
  });
});
