import { describe, expect, it } from 'vitest';
import { EXACT_DIALECTS } from '../../../src/sql/exactDialects.js';
import { deleteByKey, insertBack, insertBackMany, insertKept, keptRowsBefore, rowsByKeys, updateBack, updateBackMany } from '../../../src/sql/keptRowsSql.js';

const sqlite = EXACT_DIALECTS.sqlite!;
const duckdb = EXACT_DIALECTS.duckdb!;
const mysql = EXACT_DIALECTS.mysql!;
const postgres = EXACT_DIALECTS.postgres!;
const columns = [
  { name: 'shop', type: 'INTEGER' },
  { name: 'id', type: 'BIGINT' },
  { name: 'pic', type: 'BLOB' },
  { name: 'price', type: 'DECIMAL(38,10)' },
];
const table = { schema: 'main', name: 'Odd "T"' };

/** The SQL of a kept write and of its undo (db/keepSteps.js, restoreSteps.js), in SQLite's and DuckDB's exact forms. */
describe('the SQL of kept rows', () => {
  it('reads the rows before in key order, as they are on SQLite and cast to text (a BLOB in base64) on DuckDB', () => {
    const selection = { target: 'items i', condition: 'i.price > $1', params: [3] };
    expect(keptRowsBefore(selection, columns, [0, 1], 10_001, duckdb)).toBe(
      'SELECT CAST("shop" AS VARCHAR), CAST("id" AS VARCHAR), to_base64("pic"), CAST("price" AS VARCHAR) FROM items i WHERE i.price > $1 ORDER BY "shop", "id" LIMIT 10001',
    );
    expect(keptRowsBefore({ target: 't', condition: undefined, params: [] }, columns, [1], 3, sqlite)).toBe('SELECT "shop", "id", "pic", "price" FROM t ORDER BY "id" LIMIT 3');
  });

  it('locks the rows before on the servers, where other sessions write beside Sluice', () => {
    const selection = { target: '`items`', condition: 'price > ?', params: [3] };
    expect(keptRowsBefore(selection, columns, [1], 2, mysql)).toBe(
      'SELECT `shop`, `id`, `pic`, `price` FROM `items` WHERE price > ? ORDER BY `id` LIMIT 2 FOR UPDATE',
    );
    expect(keptRowsBefore({ ...selection, target: 'items' }, columns, [1], 2, postgres)).toMatch(/ ORDER BY "id" LIMIT 2 FOR UPDATE$/);
    expect(insertBack({ schema: 'public', name: 'items' }, columns, postgres)).toBe(
      'INSERT INTO "public"."items" ("shop", "id", "pic", "price") OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4)',
    );
  });

  it('returns an INSERT\'s rows in exact form, and refuses what insertTried refuses', () => {
    expect(insertKept('INSERT INTO t VALUES ($1, 2, NULL, 3);', columns, 'duckdb', duckdb)).toEqual({
      sql: 'INSERT INTO t VALUES ($1, 2, NULL, 3) RETURNING CAST("shop" AS VARCHAR), CAST("id" AS VARCHAR), to_base64("pic"), CAST("price" AS VARCHAR)',
    });
    expect(insertKept('INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING', columns, 'sqlite', sqlite)).toEqual({ refused: 'with ON CONFLICT it may change rows already there' });
  });

  it('reads a batch of composite keys, and deletes, sets back (all but the key) and inserts one row, each value cast to its column type on DuckDB', () => {
    expect(rowsByKeys(table, columns, [0, 1], 2, duckdb)).toBe(
      'SELECT CAST("shop" AS VARCHAR), CAST("id" AS VARCHAR), to_base64("pic"), CAST("price" AS VARCHAR) FROM "main"."Odd ""T""" ' +
        'WHERE ("shop" = CAST($1 AS INTEGER) AND "id" = CAST($2 AS BIGINT)) OR ("shop" = CAST($3 AS INTEGER) AND "id" = CAST($4 AS BIGINT))',
    );
    expect(rowsByKeys(table, columns, [1], 3, sqlite)).toBe('SELECT "shop", "id", "pic", "price" FROM "main"."Odd ""T""" WHERE ("id" = ?) OR ("id" = ?) OR ("id" = ?)');
    expect(deleteByKey(table, columns, [0, 1], duckdb)).toBe('DELETE FROM "main"."Odd ""T""" WHERE "shop" = CAST($1 AS INTEGER) AND "id" = CAST($2 AS BIGINT)');
    expect(updateBack(table, columns, [1], duckdb)).toBe(
      'UPDATE "main"."Odd ""T""" SET "shop" = CAST($1 AS INTEGER), "pic" = from_base64($2), "price" = CAST($3 AS DECIMAL(38,10)) WHERE "id" = CAST($4 AS BIGINT)',
    );
    expect(updateBack(table, columns, [0, 1], sqlite)).toBe('UPDATE "main"."Odd ""T""" SET "pic" = ?, "price" = ? WHERE "shop" = ? AND "id" = ?');
    expect(updateBack(table, columns.slice(0, 2), [0, 1], sqlite)).toBe('UPDATE "main"."Odd ""T""" SET "shop" = ?, "id" = ? WHERE "shop" = ? AND "id" = ?');
    expect(insertBack(table, columns, sqlite)).toBe('INSERT INTO "main"."Odd ""T""" ("shop", "id", "pic", "price") VALUES (?, ?, ?, ?)');
  });

  it('sets a batch of rows back in one UPDATE on DuckDB, each row bound as updateBack binds it, joined by its key, and inserts a batch in one INSERT', () => {
    expect(updateBackMany(table, columns, [0, 1], 2, duckdb)).toBe(
      'UPDATE "main"."Odd ""T""" AS "t" SET "pic" = "v"."c1", "price" = "v"."c2" FROM (VALUES ' +
        '(from_base64($1), CAST($2 AS DECIMAL(38,10)), CAST($3 AS INTEGER), CAST($4 AS BIGINT)), ' +
        '(from_base64($5), CAST($6 AS DECIMAL(38,10)), CAST($7 AS INTEGER), CAST($8 AS BIGINT))) AS "v"("c1", "c2", "c3", "c4") ' +
        'WHERE "t"."shop" = "v"."c3" AND "t"."id" = "v"."c4"',
    );
    expect(updateBackMany(table, columns.slice(0, 2), [0, 1], 1, duckdb)).toBe(
      'UPDATE "main"."Odd ""T""" AS "t" SET "shop" = "v"."c1", "id" = "v"."c2" FROM (VALUES (CAST($1 AS INTEGER), CAST($2 AS BIGINT), CAST($3 AS INTEGER), CAST($4 AS BIGINT))) ' +
        'AS "v"("c1", "c2", "c3", "c4") WHERE "t"."shop" = "v"."c3" AND "t"."id" = "v"."c4"',
    );
    expect(insertBackMany(table, columns.slice(0, 3), 2, duckdb)).toBe(
      'INSERT INTO "main"."Odd ""T""" ("shop", "id", "pic") VALUES (CAST($1 AS INTEGER), CAST($2 AS BIGINT), from_base64($3)), (CAST($4 AS INTEGER), CAST($5 AS BIGINT), from_base64($6))',
    );
    expect(duckdb.setsBackInBatches).toBe(true);
    expect([sqlite, mysql, postgres].map((dialect) => dialect.setsBackInBatches)).toEqual([undefined, undefined, undefined]);
  });
});
