import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exactEffect } from '../../src/capabilities/exactEffect.js';
import { DATABASES } from '../../src/core/contract.js';
import { openDatabase } from '../../src/db/connections/connectionCatalog.js';
import { type Database as SluiceDatabase, type Engine, valuesOf } from '../../src/db/database.js';
import { holdInstance } from '../../src/db/engines/duckdb/duckdbInstances.js';
import { DriverFailure } from '../../src/db/driverFailure.js';
import type { EffectPreview } from '../../src/runtime/consentDialogs.js';
import { availableEngines, createFixture, type EngineFixture } from '../helpers/engines.js';

/**
 * The exact effect of a write, shown before consent (docs/console.md, "The exact effect"), on each
 * engine: the write tried in a transaction that is rolled back, its changed rows before and after; the
 * approved write then doing exactly that; the estimate, saying why, where the try could escape the
 * transaction; and a lock held by another session ending the try at once.
 */

type ExactEffect = Extract<EffectPreview, { basis: 'exact' }>;

/** Each engine's way to fire a trigger on `noted` that writes `note_log`, and a key drawn from a sequence; none where it has no triggers (DuckDB). */
const TRIGGERS: Record<Engine, string[]> = {
  postgres: [
    'CREATE FUNCTION note() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO note_log VALUES (NEW.v); RETURN NEW; END $$',
    'CREATE TRIGGER noting AFTER UPDATE ON noted FOR EACH ROW EXECUTE FUNCTION note()',
  ],
  mysql: ['CREATE TRIGGER noting AFTER UPDATE ON noted FOR EACH ROW INSERT INTO note_log VALUES (NEW.v)'],
  sqlite: ['CREATE TRIGGER noting AFTER UPDATE ON noted BEGIN INSERT INTO note_log VALUES (NEW.v); END'],
  duckdb: [],
};
const COUNTED: Record<Engine, string[]> = {
  postgres: ['CREATE TABLE counted (id SERIAL PRIMARY KEY, v INTEGER)'],
  mysql: ['CREATE TABLE counted (id INTEGER AUTO_INCREMENT PRIMARY KEY, v INTEGER)'],
  sqlite: ['CREATE TABLE counted (id INTEGER PRIMARY KEY AUTOINCREMENT, v INTEGER)'],
  duckdb: ['CREATE SEQUENCE counted_ids', "CREATE TABLE counted (id INTEGER DEFAULT nextval('counted_ids') PRIMARY KEY, v INTEGER)"],
};

/** A condition that takes seconds to evaluate, once, on each engine, and calls nothing that escapes. */
const SLOW: Record<Engine, string> = {
  postgres: 'id > (SELECT count(*) - 10000000000 FROM generate_series(1, 200000000))',
  mysql: 'id > (SELECT count(*) - 10000000000 FROM information_schema.collations a, information_schema.collations b, information_schema.collations c, information_schema.collations d)',
  duckdb: 'id > (SELECT count(*) - 10000000000 FROM range(100000) a, range(100000) b)',
  sqlite: 'id > (SELECT count(*) - 10000000 FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50000000) SELECT x FROM c))',
};

const engines = await availableEngines();
const never = new AbortController().signal;

/** `?` on SQLite and MySQL, `$n` on PostgreSQL and DuckDB. */
const placeholder = (engine: Engine, n: number) => (engine === 'postgres' || engine === 'duckdb' ? `$${n}` : '?');

/** Another client's transaction that has changed books row 1 and holds it; `release` rolls it back. */
async function holdBookOne(fixture: EngineFixture): Promise<{ release(): Promise<void> }> {
  const lock = 'UPDATE books SET title = title WHERE id = 1';
  if (fixture.engine === 'postgres' || fixture.engine === 'mysql') {
    const url = (fixture.connection as { url: string }).url;
    if (fixture.engine === 'postgres') {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query('BEGIN');
      await client.query(lock);
      return { release: async () => void (await client.query('ROLLBACK'), await client.end()) };
    }
    const connection = await mysql.createConnection({ uri: url });
    await connection.query('START TRANSACTION');
    await connection.query(lock);
    return { release: async () => void (await connection.query('ROLLBACK'), await connection.end()) };
  }
  if (fixture.engine === 'sqlite') {
    const direct = new Database((fixture.connection as { path: string }).path);
    direct.exec('BEGIN IMMEDIATE');
    direct.exec(lock);
    return { release: async () => void (direct.exec('ROLLBACK'), direct.close()) };
  }
  const held = await holdInstance({ path: (fixture.connection as { path: string }).path });
  const connection = await held.instance.connect();
  await connection.run('BEGIN TRANSACTION');
  await connection.run(lock);
  return {
    release: async () => {
      await connection.run('ROLLBACK');
      connection.closeSync();
      held.release();
    },
  };
}

describe.each(engines)('the exact effect on %s', (engine) => {
  let fixture: EngineFixture;
  let db: SluiceDatabase;
  const p = (n: number) => placeholder(engine, n);
  const books = () => fixture.query('SELECT id, author_id, title, price FROM books ORDER BY id');
  /** Rows as Sluice reads them (the same values the preview shows). */
  const read = async (sql: string) => valuesOf((await db.read(sql, { maxRows: 1_000, timeoutMs: 5_000, signal: never })).rows);
  const write = (sql: string, params: unknown[]) => db.write(sql, { params, maxRows: 100, timeoutMs: 5_000, signal: never });

  beforeAll(async () => {
    fixture = await createFixture(engine);
    db = openDatabase(fixture.connection);
  });
  afterAll(async () => {
    await db?.close();
    await fixture?.drop();
  });

  it('an UPDATE: every changed row before and after, the table untouched, and the approved write then does exactly that', async () => {
    const before = await books();
    const sql = `UPDATE books SET price = price + 1, title = ${p(1)} WHERE author_id = ${p(2)}`;
    const effect = await exactEffect(db, { sql, params: ['Renamed', 2] }, never);
    expect(await books()).toEqual(before);
    expect(effect).toMatchObject({ rows: 8, basis: 'exact', columns: ['id', 'author_id', 'title', 'price'] });
    const { changes } = effect as ExactEffect;
    expect(changes.map((c) => c.before?.[0])).toEqual([2, 5, 8, 11, 14, 17, 20, 23]);
    expect(changes.every((c) => c.after?.[2] === 'Renamed')).toBe(true);
    await write(sql, ['Renamed', 2]);
    const now = await read('SELECT id, author_id, title, price FROM books WHERE author_id = 2 ORDER BY id');
    expect(changes.map((c) => c.after)).toEqual(now);
  });

  it('a DELETE and an INSERT: the rows that go and the rows that come, as the approved write then does', async () => {
    const gone = await read('SELECT id, author_id, title, price FROM books WHERE id > 22 ORDER BY id');
    const deleted = await exactEffect(db, { sql: 'DELETE FROM books WHERE id > 22', params: [] }, never);
    expect(deleted).toEqual({ rows: 3, basis: 'exact', columns: ['id', 'author_id', 'title', 'price'], changes: gone.map((before) => ({ before, after: null })) });
    await write('DELETE FROM books WHERE id > 22', []);
    expect(await read('SELECT count(*) FROM books WHERE id > 22')).toEqual([[0]]);

    const sql = `INSERT INTO books (id, author_id, title, price) VALUES (101, 1, ${p(1)}, 5.5), (102, 3, 'tab\there', NULL);`;
    const inserted = await exactEffect(db, { sql, params: ['New'] }, never);
    expect(await read('SELECT count(*) FROM books WHERE id > 100')).toEqual([[0]]);
    await write(sql, ['New']);
    const added = await read('SELECT id, author_id, title, price FROM books WHERE id > 100 ORDER BY id');
    expect(inserted).toEqual({ rows: 2, basis: 'exact', columns: ['id', 'author_id', 'title', 'price'], changes: added.map((after) => ({ before: null, after })) });
  });

  it('shows the first rows only, and counts them all', async () => {
    const effect = await exactEffect(db, { sql: 'UPDATE books SET title = title', params: [] }, never);
    expect(effect).toMatchObject({ rows: 24, basis: 'exact' });
    expect((effect as ExactEffect).changes).toHaveLength(DATABASES.rehearsalRowsShown);
    // An INSERT's rows come back through RETURNING: every one counted, the first shown.
    const copied = await exactEffect(db, { sql: 'INSERT INTO books (id, author_id, title, price) SELECT id + 1000, author_id, title, price FROM books', params: [] }, never);
    expect(copied).toMatchObject({ rows: 24, basis: 'exact' });
    expect((copied as ExactEffect).changes.map((c) => [c.before, typeof c.after?.[0]])).toEqual(Array(DATABASES.rehearsalRowsShown).fill([null, 'number']));
    expect(await read('SELECT count(*) FROM books WHERE id > 1000')).toEqual([[0]]);
  });

  it('a write that could escape its transaction or reach another table is not tried: the estimate, saying why', async () => {
    await fixture.query('CREATE TABLE noted (id INTEGER PRIMARY KEY, v INTEGER)');
    await fixture.query('CREATE TABLE note_log (v INTEGER)');
    await fixture.query('INSERT INTO noted VALUES (1, 1), (2, 2)');
    for (const sql of TRIGGERS[engine]) await fixture.query(sql);
    const triggered = await exactEffect(db, { sql: 'UPDATE noted SET v = v + 1', params: [] }, never);
    if (engine === 'duckdb') expect(triggered).toMatchObject({ rows: 2, basis: 'exact' });
    else expect(triggered).toEqual({ rows: 2, basis: 'counted', notExact: 'noted has triggers, whose effects Sluice cannot see' });

    const random = engine === 'mysql' ? 'RAND' : 'random';
    expect(await exactEffect(db, { sql: `UPDATE books SET price = ${random}() WHERE id < 3`, params: [] }, never)).toEqual({
      rows: 2,
      basis: 'counted',
      notExact: `it calls ${random}(), whose effect a rollback does not take back or differs on each run`,
    });
    expect(await exactEffect(db, { sql: 'WITH one AS (SELECT 1 AS x) UPDATE books SET price = 1 WHERE id IN (SELECT x FROM one)', params: [] }, never)).toMatchObject({
      notExact: 'a statement starting with WITH is not tried (it may write more than one table)',
    });
    const cascading = await exactEffect(db, { sql: 'DELETE FROM authors WHERE id = 3', params: [] }, never);
    // DuckDB keeps no ON DELETE CASCADE: its try fails on the books that still name the author.
    if (engine === 'duckdb') expect(cascading).toMatchObject({ rows: 1, basis: 'counted', notExact: expect.stringMatching(/^trying it failed: .*foreign key/i) });
    else expect(cascading).toEqual({ rows: 1, basis: 'counted', notExact: 'foreign keys of other tables cascade from authors, so it would change more than one table' });
    expect(Number((await fixture.query('SELECT count(*) FROM note_log'))[0]?.[0])).toBe(0);
  });

  it('an INSERT that draws from a sequence is not tried where the rollback keeps the sequence advanced', async () => {
    for (const sql of COUNTED[engine]) await fixture.query(sql);
    const sql = 'INSERT INTO counted (v) VALUES (7)';
    const effect = await exactEffect(db, { sql, params: [] }, never);
    if (engine === 'sqlite') {
      // SQLite's AUTOINCREMENT counter is a table row, rolled back with the rest: the try shows the key the write then gets.
      await write(sql, []);
      expect(effect).toEqual({ rows: 1, basis: 'exact', columns: ['id', 'v'], changes: [{ before: null, after: await read('SELECT id, v FROM counted').then((rows) => rows[0]) }] });
    } else {
      expect(effect).toEqual({ rows: null, reason: 'an INSERT into counted draws from a sequence, which a rollback does not take back' });
    }
  });

  it("another client's lock ends the try at once: the estimate, without queueing behind it", async () => {
    const holder = await holdBookOne(fixture);
    try {
      const started = performance.now();
      const effect = await exactEffect(db, { sql: "UPDATE books SET title = 'Locked' WHERE id = 1", params: [] }, never);
      const elapsed = performance.now() - started;
      expect(effect).toEqual({ rows: 1, basis: 'counted', notExact: 'another session holds a lock it needs' });
      const waitMs = engine === 'mysql' ? DATABASES.rehearsalLockWaitSecondsMysql * 1_000 : DATABASES.rehearsalLockWaitMs;
      expect(elapsed).toBeLessThan(waitMs + 800);
    } finally {
      await holder.release();
    }
  });

  it('past its time budget, enforced in the database, the try is stopped and the estimate shown', async () => {
    const started = performance.now();
    const effect = await exactEffect(db, { sql: `UPDATE books SET title = 'slow' WHERE ${SLOW[engine]}`, params: [] }, never, { budgetMs: 300, lockWaitMs: 200 });
    expect(performance.now() - started).toBeLessThan(300 + DATABASES.effectPreviewTimeoutMs * 2 + 2_000);
    expect(effect).toMatchObject({ notExact: 'trying it took over 0.3 s' });
    expect(Number((await fixture.query("SELECT count(*) FROM books WHERE title = 'slow'"))[0]?.[0])).toBe(0);
  });

  it("a catalogue that cannot be read leaves the write untried, and the dialog says why: the consent is still asked", async () => {
    // The same database, but its catalogue refuses to describe a table (methods bound: the drivers keep private fields).
    const refusing = new Proxy(db, {
      get(target, property) {
        if (property === 'describeTable') {
          return async () => {
            throw new DriverFailure('query_failed', 'permission denied for table books');
          };
        }
        const value = Reflect.get(target, property) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    expect(await exactEffect(refusing, { sql: 'DELETE FROM books WHERE id = 1', params: [] }, never)).toEqual({
      rows: 1,
      basis: 'counted',
      notExact: "reading its table's catalogue failed: permission denied for table books",
    });
  });
});
