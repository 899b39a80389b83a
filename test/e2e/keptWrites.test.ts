import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { UNDO } from '../../src/core/contract.js';
import type { Database as SluiceDatabase } from '../../src/db/database.js';
import { DriverFailure } from '../../src/db/driverFailure.js';
import { DuckdbDatabase } from '../../src/db/engines/duckdb/duckdbDatabase.js';
import { holdInstance } from '../../src/db/engines/duckdb/duckdbInstances.js';
import { engineModule } from '../../src/db/engines/registry.js';
import { SqliteDatabase } from '../../src/db/engines/sqlite/sqliteDatabase.js';
import type { ExactValue, KeepPlan, KeptRows, KeptVerb, KeptWrite, Restored } from '../../src/db/keptWrites.js';

/**
 * Undo at the db level (issue 31, items 2 and 3) on the embedded engines: an approved INSERT, UPDATE or
 * DELETE run with its rows kept (`Database.keepWrite`), then taken back (`restoreRows`), the table the
 * same byte for byte by the engine's own reckoning of every row and column, awkward values included.
 * A row changed since stops the undo, unless forced; the undo can itself be undone; past the bounds, or
 * when an UPDATE moves a key, nothing is kept and the write stands; a failing statement leaves nothing.
 */

const signal = new AbortController().signal;

/** An engine under test: Sluice's database, the same file reached directly, and the engine's own digest of a table. */
type Harness = {
  engine: 'sqlite' | 'duckdb';
  db: SluiceDatabase;
  exec(sql: string): Promise<void>;
  digest(table: keyof typeof ORDER): Promise<string>;
  /** The INSERT of two awkward rows into `things`, in the engine's own literals. */
  insert: string;
  /** Another session on the same database, its statements run one by one (so it can hold a transaction open). */
  other(): Promise<{ exec(sql: string): Promise<void>; close(): void }>;
  close(): Promise<void>;
};

const ORDER = { things: 'shop, id', tags: 'name', parents: 'id', many: 'id', derived: 'id' } as const;
const SQLITE_COLUMNS = { things: ['shop', 'id', 'big', 'f', 'n', 'txt', 'b', 'j', 'v'], tags: ['name', 'note'], parents: ['id', 'label'], many: ['id', 'v'], derived: ['id', 'a', 'twice', 'half'] };
const ODD_TEXT = 'ℌ𝔢𝔩𝔩𝔬 \u202Ertl\u202C e\u0301 \uFEFF tab\there  ';
const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

/**
 * SQLite: every cell as its storage class and quote() (full precision), and -0.0 told from 0.0 (quote()
 * prints both as 0.0). A REAL column stores -0.0 as 0 (an integral real is stored as an integer), so -0.0
 * lives in the column without affinity (`v`).
 */
async function sqliteHarness(dir: string): Promise<Harness> {
  const path = join(dir, 'kept.sqlite');
  const direct = new Database(path);
  direct.exec(`CREATE TABLE things (shop INTEGER NOT NULL, id INTEGER NOT NULL, big INTEGER, f REAL, n NUMERIC, txt TEXT, b BLOB, j TEXT, v, PRIMARY KEY (shop, id));
    CREATE TABLE tags (name TEXT NOT NULL UNIQUE, note TEXT);
    CREATE TABLE parents (id INTEGER PRIMARY KEY, label TEXT);
    CREATE TABLE children (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parents (id));`);
  const put = direct.prepare('INSERT INTO things VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  put.run(1, 1, 2n ** 53n + 1n, 0.1 + 0.2, '123456789012345678901234567890.123', 'trailing  ', ALL_BYTES, '{"a":[1,2.50,"é"]}', -(2n ** 63n));
  put.run(1, 2, -1, 1.5, 1, ODD_TEXT, Buffer.alloc(0), null, -0);
  put.run(2, 1, 2n ** 63n - 1n, Infinity, null, '', null, '[]', 'text');
  put.run(2, 2, 0, -Infinity, 0.5, ' lead', Buffer.from([0, 0]), '{}', Buffer.from([1, 2]));
  put.run(3, 1, 7, 5e-324, 10, 'x', null, null, 42n);
  direct.exec("INSERT INTO tags VALUES ('alpha', 'a'), ('beta ', NULL), ('γ', 'g'); INSERT INTO parents VALUES (1, 'one');");
  direct.close();
  const run = (sql: string) => {
    const db = new Database(path);
    try {
      db.pragma('foreign_keys = ON');
      const stmt = db.prepare(sql);
      return stmt.reader ? (stmt.raw(true).all() as unknown[][]) : (stmt.run(), []);
    } finally {
      db.close();
    }
  };
  const db = new SqliteDatabase(path);
  return {
    engine: 'sqlite',
    db,
    exec: async (sql) => void run(sql),
    async digest(table) {
      const cell = (c: string) => `typeof("${c}") || ':' || quote("${c}") || CASE WHEN typeof("${c}") = 'real' AND "${c}" = 0 AND atan2("${c}", -1) < 0 THEN '-' ELSE '' END`;
      const cells = SQLITE_COLUMNS[table].map(cell).join(" || ',' || ");
      return String(run(`SELECT count(*) || '/' || coalesce(group_concat(r, '|'), '') FROM (SELECT ${cells} AS r FROM ${table} ORDER BY ${ORDER[table]})`)[0]?.[0]);
    },
    insert: `INSERT INTO things (shop, id, big, f, n, txt, b, j, v) VALUES (9, 1, 9223372036854775806, 0.1, 3.14159265358979, 'new  ', x'00ff00', '{"k":1}', 3.25),
      (9, 2, -2, x'', NULL, 'ü', NULL, NULL, -0.0)`,
    async other() {
      const session = new Database(path);
      return { exec: async (sql) => void session.exec(sql), close: () => session.close() };
    },
    close: () => db.close(),
  };
}

/** DuckDB: the md5 of every row cast to text, and of every BLOB in hex (the cast escapes bytes, not unambiguously). */
async function duckdbHarness(dir: string): Promise<Harness> {
  const path = join(dir, 'kept.duckdb');
  const held = await holdInstance({ path });
  const run = async (sql: string) => {
    const connection = await held.instance.connect();
    try {
      return (await connection.runAndReadAll(sql)).getRowsJS() as unknown[][];
    } finally {
      connection.closeSync();
    }
  };
  const hex = ALL_BYTES.toString('hex');
  await run(`CREATE TABLE things (shop INTEGER NOT NULL, id BIGINT NOT NULL, big HUGEINT, f DOUBLE, n DECIMAL(38,10), txt VARCHAR, b BLOB, j JSON,
    ts TIMESTAMP, tz TIMESTAMPTZ, d DATE, PRIMARY KEY (shop, id))`);
  await run('CREATE TABLE tags (name VARCHAR NOT NULL UNIQUE, note VARCHAR)');
  await run('CREATE TABLE parents (id INTEGER PRIMARY KEY, label VARCHAR)');
  await run('CREATE TABLE children (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parents (id))');
  await run(`INSERT INTO things VALUES
    (1, 1, 170141183460469231731687303715884105727, 0.30000000000000004, 1234567890123456789012345678.0123456789, 'trailing  ', unhex('${hex}'), '{"a":[1,2.50,"é"]}',
      '2024-02-29 12:34:56.789012', '2024-02-29 12:34:56.789012+05:30', '1999-12-31'),
    (1, 2, -1, '-0.0'::DOUBLE, -0.0000000001, '${ODD_TEXT}', ''::BLOB, NULL, '1970-01-01 00:00:00.000001', '2000-01-01 00:00:00+00', NULL),
    (2, 1, -170141183460469231731687303715884105727, 'inf'::DOUBLE, NULL, '', NULL, '[]', NULL, NULL, '0001-01-01'),
    (2, 2, 9007199254740993, '-inf'::DOUBLE, 0.5, ' lead', unhex('0000'), '{}', '2262-04-11 23:47:16.854775', '1900-06-01 00:00:00-03', '2024-02-29'),
    (3, 1, 7, 5e-324, 10, 'x', NULL, NULL, NULL, NULL, NULL)`);
  await run("INSERT INTO tags VALUES ('alpha', 'a'), ('beta ', NULL), ('γ', 'g'); INSERT INTO parents VALUES (1, 'one')");
  const db = new DuckdbDatabase({ path }, systemClock);
  return {
    engine: 'duckdb',
    db,
    exec: async (sql) => void (await run(sql)),
    async digest(table) {
      const blobs = table === 'things' ? " || coalesce(hex(t.b), '~')" : '';
      return String((await run(`SELECT count(*) || '/' || coalesce(md5(string_agg(CAST(t AS VARCHAR)${blobs}, '|' ORDER BY ${ORDER[table]})), '') FROM ${table} t`))[0]?.[0]);
    },
    insert: `INSERT INTO things VALUES (9, 1, 99999999999999999999999999999999999999, 0.1, 3.1415926535897932384626433832, 'new  ', unhex('00ff00'), '{"k":1}',
      '2024-01-01 00:00:00.5', '2024-06-30 23:59:59.999999+14:00', '2024-01-01'), (9, 2, -2, '-0.0'::DOUBLE, NULL, 'ü', NULL, NULL, NULL, NULL, NULL)`,
    async other() {
      const session = await held.instance.connect();
      return { exec: async (sql) => void (await session.run(sql)), close: () => session.closeSync() };
    },
    async close() {
      await db.close();
      held.release();
    },
  };
}

const KEYS = { things: ['shop', 'id'], tags: ['name'], parents: ['id'], many: ['id'], derived: ['id'] } as const;

/** An approved write run with its rows kept, its plan made as the capability makes it (the engine's row selection). */
async function keep(h: Harness, sql: string, table: keyof typeof KEYS, bounds: Partial<Pick<KeepPlan, 'maxRows' | 'maxBytes' | 'timeoutMs'>> = {}): Promise<KeptWrite> {
  const verb = sql.trim().split(/\s/)[0]?.toUpperCase() as KeptVerb;
  const description = await h.db.describeTable('main', table, signal);
  const selection = verb === 'INSERT' ? undefined : await engineModule(h.engine).effects.rowSelection(sql, []);
  if (selection && 'refused' in selection) throw new Error(selection.refused);
  return h.db.keepWrite!({
    verb,
    sql,
    params: [],
    table: { schema: 'main', name: table, target: table, keys: [...KEYS[table]], columns: description!.columns },
    ...(selection ? { selection } : {}),
    maxRows: bounds.maxRows ?? UNDO.maxRows,
    maxBytes: bounds.maxBytes ?? UNDO.maxBytes,
    timeoutMs: bounds.timeoutMs ?? 10_000,
    signal,
  });
}

const restore = (h: Harness, verb: KeptVerb, table: string, rows: KeptRows, force = false): Promise<Restored> =>
  h.db.restoreRows!({ verb, table: { schema: 'main', name: table }, rows, force, timeoutMs: 10_000, signal });

function kept(write: KeptWrite): KeptRows<ExactValue[]> {
  if (!('kept' in write)) throw new Error(`not kept: ${write.notKept}`);
  return write.kept;
}

function done(restored: Restored): Extract<Restored, { restored: true }> {
  if (!restored.restored) throw new Error(`not restored: ${JSON.stringify(restored.differs)}`);
  return restored;
}

const HARNESSES = { sqlite: sqliteHarness, duckdb: duckdbHarness };

describe.each(['sqlite', 'duckdb'] as const)('kept writes on %s', (engine) => {
  let dir: string;
  let h: Harness;
  let original: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), `sluice-kept-${engine}-`));
    h = await HARNESSES[engine](dir);
    original = await h.digest('things');
  });
  afterEach(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps an INSERT (its rows as returned, exact) and takes it back to the same bytes', async () => {
    const write = await keep(h, h.insert, 'things');
    expect(write.result).toEqual({ columns: [], rows: [], truncated: false, cellsCut: 0, rowsAffected: 2 });
    const rows = kept(write);
    expect(rows.before).toEqual([]);
    expect(rows.after.map((row) => row.slice(0, 2))).toEqual(engine === 'sqlite' ? [[{ i: '9' }, { i: '1' }], [{ i: '9' }, { i: '2' }]] : [['9', '1'], ['9', '2']]);
    expect(engine === 'sqlite' ? rows.after[1]?.[8] : rows.after[1]?.[3]).toEqual(engine === 'sqlite' ? { f: '-0' } : '-0.0');
    expect(await h.digest('things')).not.toBe(original);
    const undone = done(await restore(h, 'INSERT', 'things', rows));
    expect(undone).toMatchObject({ rowsAffected: 2, verb: 'DELETE', kept: { before: rows.after, after: [] } });
    expect(await h.digest('things')).toBe(original);
  });

  it('keeps an UPDATE of a composite key\'s rows, before and after, and sets them back to the same bytes; the undo undone is the write again', async () => {
    const rows = kept(await keep(h, "UPDATE things SET f = 2.5, txt = txt || '!', b = NULL, j = '{}', n = NULL WHERE shop IN (1, 2)", 'things'));
    const written = await h.digest('things');
    expect(rows.keys).toEqual([0, 1]);
    expect(rows.before).toHaveLength(4);
    expect(rows.after.map((row) => row[5])).toEqual(rows.before.map((row) => `${row[5]}!`));
    expect(rows.before[0]?.[2]).toEqual(engine === 'sqlite' ? { i: '9007199254740993' } : '170141183460469231731687303715884105727');
    expect(engine === 'sqlite' ? rows.before[1]?.[8] : rows.before[1]?.[3]).toEqual(engine === 'sqlite' ? { f: '-0' } : '-0.0');
    const undone = done(await restore(h, 'UPDATE', 'things', rows));
    expect(undone).toMatchObject({ rowsAffected: 4, verb: 'UPDATE', kept: { before: rows.after, after: rows.before } });
    expect(await h.digest('things')).toBe(original);
    done(await restore(h, 'UPDATE', 'things', undone.kept));
    expect(await h.digest('things')).toBe(written);
  });

  it('keeps a DELETE of every row (the before-images exact: big integers, -0, infinities, all 256 byte values) and inserts them back', async () => {
    const rows = kept(await keep(h, 'DELETE FROM things', 'things'));
    expect(rows.before).toHaveLength(5);
    expect(rows.after).toEqual([]);
    const blob = rows.before[0]?.[6];
    expect(blob).toEqual({ b: ALL_BYTES.toString('base64') });
    expect(await h.digest('things')).toBe('0/');
    const undone = done(await restore(h, 'DELETE', 'things', rows));
    expect(undone).toMatchObject({ rowsAffected: 5, verb: 'INSERT', kept: { before: [], after: rows.before } });
    expect(await h.digest('things')).toBe(original);
  });

  it('keeps the rows of a table keyed by a unique column never null (trailing spaces in the key) and puts them back', async () => {
    const tags = await h.digest('tags');
    const rows = kept(await keep(h, "UPDATE tags SET note = 'n/a' WHERE name <> 'alpha'", 'tags'));
    expect(rows.before.map((row) => row[0])).toEqual(['beta ', 'γ']);
    done(await restore(h, 'UPDATE', 'tags', rows));
    expect(await h.digest('tags')).toBe(tags);
    const deleted = kept(await keep(h, 'DELETE FROM tags', 'tags'));
    done(await restore(h, 'DELETE', 'tags', deleted));
    expect(await h.digest('tags')).toBe(tags);
  });

  it(`reads kept rows again by key ${UNDO.keysPerRead} keys at a time: 245 rows of 250 set back, then all of them inserted back`, async () => {
    await h.exec('CREATE TABLE many (id INTEGER PRIMARY KEY, v VARCHAR(20))');
    await h.exec("INSERT INTO many WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 250) SELECT i, 'v' || i FROM n");
    const many = await h.digest('many');
    expect(many.startsWith('250/')).toBe(true);
    const rows = kept(await keep(h, "UPDATE many SET v = v || '!' WHERE id > 5", 'many'));
    expect([rows.before.length, rows.after.length, rows.after[244]?.[1]]).toEqual([245, 245, 'v250!']);
    expect(done(await restore(h, 'UPDATE', 'many', rows)).rowsAffected).toBe(245);
    expect(await h.digest('many')).toBe(many);
    const deleted = kept(await keep(h, 'DELETE FROM many', 'many'));
    expect(done(await restore(h, 'DELETE', 'many', deleted)).kept.after).toHaveLength(250);
    expect(await h.digest('many')).toBe(many);
  });

  it('refuses the undo when a row changed since or is gone, naming them, and changes nothing; forced, it sets one back and inserts the other again', async () => {
    const rows = kept(await keep(h, "UPDATE things SET txt = 'kept' WHERE shop = 1", 'things'));
    await h.exec("UPDATE things SET txt = 'since' WHERE shop = 1 AND id = 2");
    await h.exec('DELETE FROM things WHERE shop = 1 AND id = 1');
    const since = await h.digest('things');
    const refused = await restore(h, 'UPDATE', 'things', rows);
    const key = (id: number) => (engine === 'sqlite' ? [{ i: '1' }, { i: String(id) }] : ['1', String(id)]);
    expect(refused).toEqual({
      restored: false,
      differs: [
        { key: key(1), now: null, expected: rows.after[0] },
        { key: key(2), now: rows.after[1]!.map((v, i) => (i === 5 ? 'since' : v)), expected: rows.after[1] },
      ],
    });
    expect(await h.digest('things')).toBe(since);
    const forced = done(await restore(h, 'UPDATE', 'things', rows, true));
    expect(forced.rowsAffected).toBe(2);
    // The forced undo's own rows say what it did to each row: the one gone inserted again (absent before), the other set back.
    expect(forced).toMatchObject({ verb: 'UPDATE', kept: { before: [null, refused.restored === false && refused.differs[1]?.now], after: rows.before } });
    expect(await h.digest('things')).toBe(original);
    // Taken back in turn, it deletes the row it inserted and sets the other as it found it: the table as it was before the undo.
    expect(done(await restore(h, forced.verb, 'things', forced.kept))).toMatchObject({ rowsAffected: 2, verb: 'UPDATE', kept: { before: rows.before, after: [null, forced.kept.before[1]] } });
    expect(await h.digest('things')).toBe(since);
  });

  it('refuses to take back an INSERT whose row is gone or changed, or a DELETE whose key is taken again; forced, it does, and that is taken back exactly', async () => {
    const inserted = kept(await keep(h, h.insert, 'things'));
    await h.exec('DELETE FROM things WHERE shop = 9 AND id = 2');
    await h.exec("UPDATE things SET txt = 'changed' WHERE shop = 9 AND id = 1");
    const changed = await h.digest('things');
    const gone = await restore(h, 'INSERT', 'things', inserted);
    const changedRow = inserted.after[0]!.map((v, i) => (i === 5 ? 'changed' : v));
    expect(gone.restored === false && gone.differs.map((d) => [d.now, d.expected])).toEqual([[changedRow, inserted.after[0]], [null, inserted.after[1]]]);
    const removed = done(await restore(h, 'INSERT', 'things', inserted, true));
    expect(removed).toEqual({ restored: true, rowsAffected: 1, verb: 'DELETE', kept: { ...inserted, before: [changedRow], after: [] } });
    expect(await h.digest('things')).toBe(original);
    done(await restore(h, removed.verb, 'things', removed.kept));
    expect(await h.digest('things')).toBe(changed);
    await h.exec('DELETE FROM things WHERE shop = 9');
    expect(await h.digest('things')).toBe(original);

    const deleted = kept(await keep(h, 'DELETE FROM things WHERE shop IN (2, 3)', 'things'));
    await h.exec("INSERT INTO things (shop, id, txt) VALUES (3, 1, 'squatter')");
    const taken = await restore(h, 'DELETE', 'things', deleted);
    const squatter = taken.restored === false ? taken.differs[0]?.now : undefined;
    expect(taken.restored === false && taken.differs.map((d) => [d.expected, d.now?.[5]])).toEqual([[null, 'squatter']]);
    const squatted = await h.digest('things');
    const replaced = done(await restore(h, 'DELETE', 'things', deleted, true));
    // Two rows inserted again, one replaced: the undo's rows pair each with what was in its place.
    expect(replaced).toEqual({ restored: true, rowsAffected: 3, verb: 'UPDATE', kept: { ...deleted, before: [null, null, squatter], after: deleted.before } });
    expect(await h.digest('things')).toBe(original);
    expect(done(await restore(h, replaced.verb, 'things', replaced.kept))).toMatchObject({ rowsAffected: 3, verb: 'UPDATE', kept: { before: deleted.before, after: [null, null, squatter] } });
    expect(await h.digest('things')).toBe(squatted);
  });

  it('keeps nothing past maxRows or maxBytes, or when an UPDATE changes a key, and the write still stands', async () => {
    const overRows = await keep(h, "UPDATE things SET txt = 'many' WHERE shop IN (1, 2)", 'things', { maxRows: 3 });
    expect(overRows).toEqual({ result: expect.objectContaining({ rowsAffected: 4 }), notKept: `it changes more than 3 rows or ${UNDO.maxBytes} bytes of them` });
    const overBytes = await keep(h, h.insert, 'things', { maxBytes: 200 });
    expect(overBytes).toEqual({ result: expect.objectContaining({ rowsAffected: 2 }), notKept: `it changes more than ${UNDO.maxRows} rows or 200 bytes of them` });
    const moved = await keep(h, 'UPDATE things SET id = id + 10 WHERE shop = 1', 'things');
    expect(moved).toEqual({ result: expect.objectContaining({ rowsAffected: 2 }), notKept: 'it changed key columns' });
    const now = await h.digest('things');
    expect(now.startsWith('7/')).toBe(true);
    expect(now).not.toBe(original);
  });

  it('keeps the columns a table stores of its own, and lets the engine compute its generated ones again', async () => {
    // SQLite has stored and virtual generated columns; DuckDB virtual ones only.
    await h.exec(
      engine === 'sqlite'
        ? 'CREATE TABLE derived (id INTEGER PRIMARY KEY, a INTEGER, twice INTEGER GENERATED ALWAYS AS (a * 2) STORED, half INTEGER AS (a / 2) VIRTUAL)'
        : 'CREATE TABLE derived (id INTEGER PRIMARY KEY, a INTEGER, twice INTEGER GENERATED ALWAYS AS (a * 2) VIRTUAL, half AS (a // 2))',
    );
    await h.exec('INSERT INTO derived (id, a) VALUES (1, 10), (2, 21)');
    const derived = await h.digest('derived');
    const int = (n: number) => (engine === 'sqlite' ? { i: String(n) } : String(n));
    const updated = kept(await keep(h, 'UPDATE derived SET a = a + 1 WHERE id > 0', 'derived'));
    expect(updated).toEqual({ columns: ['id', 'a'], keys: [0], before: [[int(1), int(10)], [int(2), int(21)]], after: [[int(1), int(11)], [int(2), int(22)]] });
    done(await restore(h, 'UPDATE', 'derived', updated));
    expect(await h.digest('derived')).toBe(derived);
    const deleted = kept(await keep(h, 'DELETE FROM derived', 'derived'));
    done(await restore(h, 'DELETE', 'derived', deleted));
    expect(await h.digest('derived')).toBe(derived);
    const inserted = kept(await keep(h, 'INSERT INTO derived (id, a) VALUES (3, 7)', 'derived'));
    expect(inserted.after).toEqual([[int(3), int(7)]]);
    done(await restore(h, 'INSERT', 'derived', inserted));
    expect(await h.digest('derived')).toBe(derived);
  });

  it.runIf(engine === 'sqlite')("waits for another session's write transaction, then keeps the rows as that session left them: no change of it is undone", async () => {
    const other = await h.other();
    try {
      await other.exec("BEGIN IMMEDIATE; UPDATE things SET txt = 'other' WHERE shop = 1 AND id = 2");
      let settled = false;
      const pending = keep(h, "UPDATE things SET txt = 'kept' WHERE shop = 1", 'things').finally(() => (settled = true));
      // The kept write's BEGIN IMMEDIATE waits for the write lock (the busy timeout, 5 s); a real pause, as it runs in another process.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(settled).toBe(false);
      await other.exec('COMMIT');
      const rows = kept(await pending);
      expect(rows.before.map((row) => row[5])).toEqual(['trailing  ', 'other']);
      done(await restore(h, 'UPDATE', 'things', rows));
      // The undo took back the kept write alone: the other session's change is all that differs.
      expect(await h.digest('things')).not.toBe(original);
      await other.exec(`UPDATE things SET txt = '${ODD_TEXT}' WHERE shop = 1 AND id = 2`);
      expect(await h.digest('things')).toBe(original);
    } finally {
      other.close();
    }
  });

  it.runIf(engine === 'duckdb')("fails a kept write or an undo on a row another session changed, overwriting nothing (DuckDB's conflict, not a lost update)", async () => {
    const other = await h.other();
    try {
      await other.exec('BEGIN TRANSACTION');
      await other.exec("UPDATE things SET txt = 'other' WHERE shop = 1 AND id = 2");
      await expect(keep(h, "UPDATE things SET txt = 'kept' WHERE shop = 1", 'things')).rejects.toThrow(/conflict/i);
      await other.exec('COMMIT');
      const otherOnly = await h.digest('things');
      expect(otherOnly).not.toBe(original);

      const rows = kept(await keep(h, "UPDATE things SET txt = 'kept' WHERE shop = 1", 'things'));
      const written = await h.digest('things');
      await other.exec('BEGIN TRANSACTION');
      await other.exec("UPDATE things SET txt = 'again' WHERE shop = 1 AND id = 1");
      await expect(restore(h, 'UPDATE', 'things', rows)).rejects.toThrow(/conflict/i);
      expect(await h.digest('things')).toBe(written);
      await other.exec('COMMIT');
      const refused = await restore(h, 'UPDATE', 'things', rows);
      expect(refused.restored === false && refused.differs.map((d) => d.now?.[5])).toEqual(['again']);
    } finally {
      other.close();
    }
  });

  it('refuses kept rows that cannot be what a write left (a key out of range, a short row, unpaired rows, a row absent where it cannot be), running nothing', async () => {
    const rows = kept(await keep(h, "UPDATE tags SET note = 'x' WHERE name = 'alpha'", 'tags'));
    const written = await h.digest('tags');
    const cases: Array<[KeptRows, string]> = [
      [{ ...rows, keys: [2] }, 'their key is not among their columns'],
      [{ ...rows, after: [rows.after[0]!.slice(0, 1)] }, 'a row does not have one value per column'],
      [{ ...rows, after: [] }, "an UPDATE's rows after do not pair with its rows before"],
      [{ ...rows, before: [null], after: [null] }, "an UPDATE's row is absent both before and after"],
    ];
    for (const [bad, why] of cases) {
      await expect(restore(h, 'UPDATE', 'tags', bad)).rejects.toMatchObject({ kind: 'invalid_argument', message: `the kept rows cannot be put back: ${why}` });
    }
    // Only an undo's UPDATE may have a row absent on one side; an INSERT's or a DELETE's rows are all there.
    await expect(restore(h, 'INSERT', 'tags', { ...rows, before: [], after: [null] })).rejects.toMatchObject({ message: 'the kept rows cannot be put back: a row does not have one value per column' });
    expect(await h.digest('tags')).toBe(written);
  });

  it('answers an UPDATE with a RETURNING of its own as write() answers it, besides keeping its rows', async () => {
    const write = await keep(h, "UPDATE tags SET note = 'x' WHERE name = 'alpha' RETURNING name, note", 'tags');
    const plain = await h.db.write("UPDATE tags SET note = 'y' WHERE name = 'γ' RETURNING name, note", { maxRows: 10, timeoutMs: 10_000, signal });
    expect(write.result).toEqual({ ...plain, rows: [['alpha', 'x']] });
    expect(plain.rows).toEqual([['γ', 'y']]);
    expect(kept(write).after).toEqual([['alpha', 'x']]);
  });

  it('stops a kept write past its timeout and keeps nothing of it', async () => {
    const slow = `UPDATE things SET txt = (WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000000) SELECT CAST(count(*) AS VARCHAR) FROM c) WHERE shop = 1`;
    const started = performance.now();
    await expect(keep(h, slow, 'things', { timeoutMs: 300 })).rejects.toMatchObject({ kind: 'statement_timeout' });
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(await h.digest('things')).toBe(original);
  });

  it('rolls back everything when a statement fails: a kept write, and an undo whose second row cannot go', async () => {
    await expect(keep(h, 'UPDATE things SET shop = NULL WHERE shop = 1', 'things')).rejects.toBeInstanceOf(DriverFailure);
    expect(await h.digest('things')).toBe(original);
    const parents = await h.digest('parents');
    const inserted = kept(await keep(h, "INSERT INTO parents VALUES (2, 'two'), (3, 'three')", 'parents'));
    await h.exec('INSERT INTO children VALUES (1, 3)');
    const afterInsert = await h.digest('parents');
    await expect(restore(h, 'INSERT', 'parents', inserted)).rejects.toBeInstanceOf(DriverFailure);
    expect(await h.digest('parents')).toBe(afterInsert);
    expect(afterInsert).not.toBe(parents);
  });
});
