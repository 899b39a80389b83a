import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { UNDO } from '../../src/core/contract.js';
import { openDatabase } from '../../src/db/connections/connectionCatalog.js';
import type { Database } from '../../src/db/database.js';
import { engineModule } from '../../src/db/engines/registry.js';
import type { ExactValue, KeepPlan, KeptRows, KeptVerb, KeptWrite, Restored } from '../../src/db/keptWrites.js';
import { availableServers, busySessions, createFixture, type EngineFixture, type ServerEngine } from '../helpers/engines.js';
import { untilPasses } from '../helpers/polling.js';

/**
 * Undo on the database servers (db/keptWrites.ts): an approved INSERT, UPDATE or DELETE run with its rows
 * kept (`keepWrite`), then taken back (`restoreRows`), leaves the table byte for byte as it was, as the
 * server itself measures it (PostgreSQL: md5 of every row's text; MariaDB: CHECKSUM TABLE and every
 * column's bytes in hex). The rows hold what is hard to carry exactly: integers past 2^53, numerics of
 * 40 digits, doubles of 17 digits, singles, timestamps with microseconds and time zones, all 256 byte
 * values, JSON, arrays, enums, odd Unicode with trailing spaces, NULLs; the key is composite.
 */
const servers = await availableServers();
const signal = new AbortController().signal;

type Setup = {
  /** The awkward table (composite key region, id) and the one keyed by a unique not-null column. */
  ddl: string[];
  rows: string[];
  /** The whole table as the server measures it. */
  snapshot(fixture: EngineFixture, table: string): Promise<unknown>;
};

const POSTGRES_ROWS = [
  `INSERT INTO awkward VALUES ('eu', 9007199254740993, 1234567890123456789012345678901234567890.5, 0.30000000000000004, 3.1415927,
    '2024-03-10 01:59:59.123456-08', '2024-02-29 23:59:59.999999', (SELECT decode(string_agg(lpad(to_hex(g), 2, '0'), '' ORDER BY g), 'hex') FROM generate_series(0, 255) g),
    '{"b": 1,  "a": [1, 2.50]}', '{"b": 1, "a": [1, 2.50]}', '{1,NULL,-2147483648}', '{"a b","","NULL","\\"q\\""}', 'happy', E'e\\u0301 \\U0001F600\\u200b  ')`,
  `INSERT INTO awkward VALUES ('eu', 9007199254740992, -0.0000000000000000000000000000000000000001, '-0', '-Infinity',
    'infinity', '0001-01-01 00:00:00.000001', '\\x00', 'null', '[]', '{}', '{}', 'sad', 'trailing   ')`,
  "INSERT INTO awkward (region, id) VALUES ('us', 1)",
  "INSERT INTO awkward VALUES ('us', 2, 'NaN', 'NaN', 'Infinity', '1970-01-01 00:00:00+05:30', '2038-01-19 03:14:08', '\\xff', '1', '\"s\"', '{-1}', '{x}', 'ok', '')",
  "INSERT INTO tagged VALUES ('a-1', 'first', 1), ('b-2', 'second', NULL), ('c-3', '  third ', 3)",
  "INSERT INTO numbered (label) VALUES ('one'), ('two')",
  'INSERT INTO derived (id, a) VALUES (1, 10), (2, 21)',
];

/** How each table's rows are ordered in a snapshot: by key. */
const ORDER: Record<string, string> = { awkward: 'region, id', tagged: 'code', numbered: 'id', derived: 'id' };
/** What of each table's rows a MariaDB snapshot dumps, beside CHECKSUM TABLE: every column, its bytes where text would hide them. */
const MYSQL_DUMPED: Record<string, string> = {
  awkward: 'region, id, amount, ratio, HEX(small), at, local_at, HEX(bytes), doc, feeling, HEX(note)',
  tagged: 'code, label, n',
  numbered: 'id, label',
  derived: 'id, a, twice, half',
};

const SETUPS: Record<ServerEngine, Setup> = {
  postgres: {
    ddl: [
      "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
      `CREATE TABLE awkward (region text NOT NULL, id bigint NOT NULL, amount numeric, ratio double precision, small real,
        at timestamptz, local_at timestamp(6), bytes bytea, doc json, docb jsonb, ints integer[], words text[], feeling mood, note text,
        PRIMARY KEY (region, id))`,
      'CREATE TABLE tagged (code text NOT NULL UNIQUE, label text, n integer)',
      'CREATE TABLE numbered (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, label text)',
      'CREATE TABLE derived (id integer PRIMARY KEY, a integer, twice integer GENERATED ALWAYS AS (a * 2) STORED)',
    ],
    rows: POSTGRES_ROWS,
    async snapshot(fixture, table) {
      const order = ORDER[table];
      const [[sum] = []] = await fixture.query(`SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, E'\\n' ORDER BY ${order})), '') FROM ${table} t`);
      return sum;
    },
  },
  mysql: {
    ddl: [
      `CREATE TABLE awkward (region VARCHAR(8) NOT NULL, id BIGINT NOT NULL, amount DECIMAL(50,10), ratio DOUBLE, small FLOAT,
        at TIMESTAMP(6) NULL DEFAULT NULL, local_at DATETIME(6), bytes BLOB, doc JSON, feeling ENUM('sad', 'ok', 'happy'), note VARCHAR(100),
        PRIMARY KEY (region, id)) ENGINE=InnoDB`,
      'CREATE TABLE tagged (code VARCHAR(20) NOT NULL UNIQUE, label TEXT, n INT) ENGINE=InnoDB',
      'CREATE TABLE numbered (id BIGINT AUTO_INCREMENT PRIMARY KEY, label VARCHAR(20)) ENGINE=InnoDB',
      'CREATE TABLE derived (id INT PRIMARY KEY, a INT, twice INT AS (a * 2) STORED, half INT AS (a DIV 2) VIRTUAL) ENGINE=InnoDB',
    ],
    rows: [
      `INSERT INTO awkward VALUES ('eu', 9007199254740993, 123456789012345678901234567890.1234567891, 0.30000000000000004, 1.2345678,
        '2024-03-10 01:59:59.123456', '2024-02-29 23:59:59.999999', (SELECT UNHEX(GROUP_CONCAT(LPAD(HEX(seq), 2, '0') ORDER BY seq SEPARATOR '')) FROM seq_0_to_255),
        '{"b": 1,  "a": [1, 2.50]}', 'happy', CONCAT('e', _utf8mb4 X'CC81', ' ', _utf8mb4 X'F09F9880', _utf8mb4 X'E2808B', '  '))`,
      `INSERT INTO awkward VALUES ('eu', 9007199254740992, -0.0000000001, 1e308, 16777217,
        '2001-01-01 00:00:01.000001', '0001-01-01 00:00:00.000001', X'00', 'null', 'sad', 'trailing   ')`,
      "INSERT INTO awkward (region, id) VALUES ('us', 1)",
      "INSERT INTO awkward VALUES ('us', 2, 0, -2.2250738585072014e-308, -3.4e38, '2037-12-31 23:59:59.999999', '9999-12-31 23:59:59.999999', X'FF', '1', 'ok', '')",
      "INSERT INTO tagged VALUES ('a-1', 'first', 1), ('b-2', 'second', NULL), ('c-3', '  third ', 3)",
      "INSERT INTO numbered (label) VALUES ('one'), ('two')",
      'INSERT INTO derived (id, a) VALUES (1, 10), (2, 21)',
    ],
    async snapshot(fixture, table) {
      const [[, checksum] = []] = await fixture.query(`CHECKSUM TABLE ${table}`);
      const dump = await fixture.query(`SELECT HEX(CONCAT_WS(0x1f, ${MYSQL_DUMPED[table]})) FROM ${table} ORDER BY ${ORDER[table]}`);
      return { checksum, dump };
    },
  },
};

const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
const ODD_TEXT = 'e\u0301 \u{1F600}\u200b  ';

const COLUMNS: Record<ServerEngine, string[]> = {
  postgres: ['region', 'id', 'amount', 'ratio', 'small', 'at', 'local_at', 'bytes', 'doc', 'docb', 'ints', 'words', 'feeling', 'note'],
  mysql: ['region', 'id', 'amount', 'ratio', 'small', 'at', 'local_at', 'bytes', 'doc', 'feeling', 'note'],
};

/** The two rows of region 'eu', in key order, as each server writes them out exactly. */
const EU_ROWS: Record<ServerEngine, ExactValue[][]> = {
  postgres: [
    ['eu', '9007199254740992', '-0.0000000000000000000000000000000000000001', '-0', '-Infinity', 'infinity', '0001-01-01 00:00:00.000001', '\\x00', 'null', '[]', '{}', '{}', 'sad', 'trailing   '],
    ['eu', '9007199254740993', '1234567890123456789012345678901234567890.5', '0.30000000000000004', '3.1415927', '2024-03-10 09:59:59.123456+00', '2024-02-29 23:59:59.999999',
      `\\x${ALL_BYTES.toString('hex')}`, '{"b": 1,  "a": [1, 2.50]}', '{"a": [1, 2.50], "b": 1}', '{1,NULL,-2147483648}', '{"a b","","NULL","\\"q\\""}', 'happy', ODD_TEXT],
  ],
  mysql: [
    ['eu', '9007199254740992', '-0.0000000001', '1e+308', '16777216', '2001-01-01 00:00:01.000001', '0001-01-01 00:00:00.000001', { b: 'AA==' }, 'null', 'sad', 'trailing   '],
    ['eu', '9007199254740993', '123456789012345678901234567890.1234567891', '0.30000000000000004', '1.2345677614212036', '2024-03-10 01:59:59.123456', '2024-02-29 23:59:59.999999',
      { b: ALL_BYTES.toString('base64') }, '{"b": 1,  "a": [1, 2.50]}', 'happy', ODD_TEXT],
  ],
};

/** The statements the tests approve, in each server's SQL. */
const STATEMENTS: Record<ServerEngine, Record<'update' | 'deleteAll' | 'deleteUs' | 'insert' | 'moveKeys' | 'collide' | 'tag', string>> = {
  postgres: {
    update: "UPDATE awkward SET note = note || $1, ratio = ratio / 3, small = small / 3, bytes = bytes || decode('00', 'hex'), amount = amount + 1 WHERE region = $2",
    deleteAll: 'DELETE FROM awkward WHERE id > $1',
    deleteUs: 'DELETE FROM awkward WHERE region = $1',
    insert: `INSERT INTO awkward (region, id, amount, ratio, small, at, bytes, words, note) VALUES ('ap', 9223372036854775807,
      99999999999999999999999999999999999999.99, 1.7976931348623157e308, '-0', '2024-06-01 12:00:00.000001+14', '\\x00ff', '{"",NULL}', $1)`,
    moveKeys: 'UPDATE awkward SET id = id + 10 WHERE region = $1',
    collide: 'UPDATE awkward SET id = 2 WHERE region = $1',
    tag: "UPDATE tagged SET label = label || '.', n = 7 WHERE code <> $1",
  },
  mysql: {
    update: "UPDATE awkward SET note = CONCAT(note, ?), ratio = ratio / 3, small = small / 3, bytes = CONCAT(bytes, X'00'), amount = amount + 1 WHERE region = ?",
    deleteAll: 'DELETE FROM awkward WHERE id > ?',
    deleteUs: 'DELETE FROM awkward WHERE region = ?',
    insert: `INSERT INTO awkward (region, id, amount, ratio, small, at, bytes, note) VALUES ('ap', 9223372036854775807,
      1234567890123456789012345678901234567890.1234567891, 1.7976931348623157e308, -1.5, '2024-06-01 12:00:00.000001', X'00FF', ?)`,
    moveKeys: 'UPDATE awkward SET id = id + 10 WHERE region = ?',
    collide: 'UPDATE awkward SET id = 2 WHERE region = ?',
    tag: "UPDATE tagged SET label = CONCAT(label, '.'), n = 7 WHERE code <> ?",
  },
};

/** The row `STATEMENTS.insert` adds, as its RETURNING gives it. */
const INSERTED: Record<ServerEngine, ExactValue[]> = {
  postgres: ['ap', '9223372036854775807', '99999999999999999999999999999999999999.99', '1.7976931348623157e+308', '-0', '2024-05-31 22:00:00.000001+00', null, '\\x00ff', null, null, null, '{"",NULL}', null, '  x  '],
  mysql: ['ap', '9223372036854775807', '1234567890123456789012345678901234567890.1234567891', '1.7976931348623157e+308', '-1.5', '2024-06-01 12:00:00.000001', null, { b: 'AP8=' }, null, null, '  x  '],
};

describe.skipIf(servers.length === 0).each(servers)('kept writes on %s', (engine) => {
  const setup = SETUPS[engine];
  let fixture: EngineFixture;
  let db: Database;

  beforeAll(async () => {
    fixture = await createFixture(engine);
    for (const sql of setup.ddl) await fixture.query(sql);
    // Sluice's sessions write timestamptz out in UTC, whatever the server's own zone.
    if (engine === 'postgres') await fixture.query(`ALTER DATABASE ${fixture.database} SET timezone = 'UTC'`);
    db = openDatabase(fixture.connection, systemClock);
  });

  afterAll(async () => {
    await db?.close();
    await fixture?.drop();
  });

  beforeEach(async () => {
    await fixture.query('DELETE FROM awkward');
    await fixture.query('DELETE FROM tagged');
    await fixture.query('DELETE FROM numbered');
    await fixture.query('DELETE FROM derived');
    for (const sql of setup.rows) await fixture.query(sql);
  });

  const snapshot = (table = 'awkward') => setup.snapshot(fixture, table);

  /** Sluice's sessions running a statement; inside a transaction PostgreSQL answers pg_stat_activity from the snapshot it took first. */
  const sluiceBusy = async () => {
    if (engine === 'postgres') await fixture.query('SELECT pg_stat_clear_snapshot()');
    return busySessions(fixture);
  };

  async function plan(verb: KeptVerb, sql: string, params: unknown[] = [], bounds: Partial<KeepPlan> = {}, table = 'awkward'): Promise<KeepPlan> {
    const described = await db.describeTable(db.defaultSchema(), table, signal);
    if (!described) throw new Error(`no table ${table}`);
    const keys = described.primary_key.length > 0 ? described.primary_key : (described.indexes.find((i) => i.unique)?.columns ?? []);
    const selection = verb === 'INSERT' ? undefined : await engineModule(engine).effects.rowSelection(sql, params);
    if (selection && 'refused' in selection) throw new Error(selection.refused);
    return {
      verb, sql, params, selection,
      table: { schema: described.schema, name: described.name, target: selection?.target ?? table, keys, columns: described.columns },
      maxRows: UNDO.maxRows, maxBytes: UNDO.maxBytes, timeoutMs: 20_000, signal,
      ...bounds,
    };
  }

  const keep = async (verb: KeptVerb, sql: string, params: unknown[] = [], bounds: Partial<KeepPlan> = {}, table = 'awkward') =>
    (db.keepWrite as NonNullable<Database['keepWrite']>).call(db, await plan(verb, sql, params, bounds, table));

  const restore = (verb: KeptVerb, rows: KeptRows, force = false, table = 'awkward'): Promise<Restored> =>
    (db.restoreRows as NonNullable<Database['restoreRows']>).call(db, { verb, table: { schema: db.defaultSchema(), name: table }, rows, force, timeoutMs: 20_000, signal });

  const keptOf = (write: KeptWrite): KeptRows<ExactValue[]> => {
    if (!('kept' in write)) throw new Error(`not kept: ${write.notKept}`);
    return write.kept;
  };

  const statements = STATEMENTS[engine];

  it('keeps an UPDATE in exact form and takes it back, the table byte for byte as it was', async () => {
    const original = await snapshot();
    const write = await keep('UPDATE', statements.update, ['!', 'eu']);
    expect(write.result).toEqual({ columns: [], rows: [], truncated: false, cellsCut: 0, rowsAffected: 2 });
    const kept = keptOf(write);
    expect(kept).toMatchObject({ columns: COLUMNS[engine], keys: [0, 1], before: EU_ROWS[engine] });
    expect(kept.after.map((row) => row.at(-1))).toEqual(EU_ROWS[engine].map((row) => `${row.at(-1) as string}!`));
    expect(await snapshot()).not.toEqual(original);
    const undone = await restore('UPDATE', kept);
    expect(undone).toEqual({ restored: true, rowsAffected: 2, verb: 'UPDATE', kept: { ...kept, before: kept.after, after: kept.before } });
    expect(await snapshot()).toEqual(original);
  });

  it('keeps a DELETE and inserts its rows again, NULLs and all', async () => {
    const original = await snapshot();
    const write = await keep('DELETE', statements.deleteAll, [0]);
    const kept = keptOf(write);
    expect(write.result.rowsAffected).toBe(4);
    expect(kept.before).toHaveLength(4);
    expect(kept.before.slice(0, 3)).toEqual([...EU_ROWS[engine], ['us', '1', ...COLUMNS[engine].slice(2).map(() => null)]]);
    expect(kept.after).toEqual([]);
    expect(await fixture.query('SELECT count(*) FROM awkward')).toEqual([[engine === 'postgres' ? '0' : 0]]);
    const undone = await restore('DELETE', kept);
    expect(undone).toEqual({ restored: true, rowsAffected: 4, verb: 'INSERT', kept: { ...kept, before: [], after: kept.before } });
    expect(await snapshot()).toEqual(original);
  });

  it('keeps an INSERT by what it returns and deletes its row again', async () => {
    const original = await snapshot();
    const write = await keep('INSERT', statements.insert, ['  x  ']);
    expect(write.result).toEqual({ columns: [], rows: [], truncated: false, cellsCut: 0, rowsAffected: 1 });
    const kept = keptOf(write);
    expect(kept.before).toEqual([]);
    expect(kept.after).toEqual([INSERTED[engine]]);
    const undone = await restore('INSERT', kept);
    expect(undone).toEqual({ restored: true, rowsAffected: 1, verb: 'DELETE', kept: { ...kept, before: kept.after, after: [] } });
    expect(await snapshot()).toEqual(original);
  });

  it('stops an undo at a row changed since, changing nothing, and overwrites it when forced', async () => {
    const original = await snapshot();
    const kept = keptOf(await keep('UPDATE', statements.update, ['!', 'eu']));
    await fixture.query("UPDATE awkward SET note = 'elsewhere' WHERE id = 9007199254740993");
    const changed = await snapshot();
    const after = kept.after[1] as ExactValue[];
    expect(await restore('UPDATE', kept)).toEqual({
      restored: false,
      differs: [{ key: ['eu', '9007199254740993'], now: [...after.slice(0, -1), 'elsewhere'], expected: after }],
    });
    expect(await snapshot()).toEqual(changed);
    expect(await restore('UPDATE', kept, true)).toMatchObject({ restored: true, rowsAffected: 2, verb: 'UPDATE' });
    expect(await snapshot()).toEqual(original);
  });

  it('takes back a forced undo exactly: a row gone is deleted again, a row changed since set as it was', async () => {
    const kept = keptOf(await keep('UPDATE', statements.update, ['!', 'eu']));
    await fixture.query("UPDATE awkward SET note = 'elsewhere' WHERE id = 9007199254740993");
    await fixture.query('DELETE FROM awkward WHERE id = 9007199254740992');
    const since = await snapshot();
    const forced = await restore('UPDATE', kept, true);
    if (!forced.restored) throw new Error('not restored');
    const elsewhere = [...(kept.after[1] as ExactValue[]).slice(0, -1), 'elsewhere'];
    expect(forced).toEqual({ restored: true, rowsAffected: 2, verb: 'UPDATE', kept: { ...kept, before: [null, elsewhere], after: kept.before } });
    expect(await restore(forced.verb, forced.kept)).toEqual({ restored: true, rowsAffected: 2, verb: 'UPDATE', kept: { ...kept, before: kept.before, after: [null, elsewhere] } });
    expect(await snapshot()).toEqual(since);
  });

  it('stops the undo of a DELETE at a row put in its place, and replaces it when forced', async () => {
    const original = await snapshot();
    const kept = keptOf(await keep('DELETE', statements.deleteAll, [0]));
    await fixture.query("INSERT INTO awkward (region, id, note) VALUES ('us', 1, 'new')");
    const differs = await restore('DELETE', kept);
    expect(differs).toMatchObject({ restored: false, differs: [{ key: ['us', '1'], expected: null }] });
    expect(await fixture.query("SELECT note FROM awkward WHERE region = 'us'")).toEqual([['new']]);
    const squatted = await snapshot();
    const squatter = differs.restored === false ? differs.differs[0]?.now : undefined;
    const forced = await restore('DELETE', kept, true);
    // Three rows inserted again, one replaced: the undo keeps each as it found it, absent or the row in its place.
    expect(forced).toEqual({ restored: true, rowsAffected: 4, verb: 'UPDATE', kept: { ...kept, before: [null, null, squatter, null], after: kept.before } });
    expect(await snapshot()).toEqual(original);
    if (!forced.restored) throw new Error('not restored');
    expect(await restore(forced.verb, forced.kept)).toMatchObject({ restored: true, rowsAffected: 4, verb: 'UPDATE' });
    expect(await snapshot()).toEqual(squatted);
  });

  it('takes back the undo itself: a DELETE undone and done again', async () => {
    const kept = keptOf(await keep('DELETE', statements.deleteUs, ['us']));
    const deleted = await snapshot();
    const undone = await restore('DELETE', kept);
    if (!undone.restored) throw new Error('not restored');
    const redone = await restore(undone.verb, undone.kept);
    expect(redone).toEqual({ restored: true, rowsAffected: 2, verb: 'DELETE', kept: { ...kept, before: kept.before, after: [] } });
    expect(await snapshot()).toEqual(deleted);
  });

  it('takes back the undo of an UPDATE', async () => {
    const kept = keptOf(await keep('UPDATE', statements.update, ['!', 'eu']));
    const updated = await snapshot();
    const undone = await restore('UPDATE', kept);
    if (!undone.restored) throw new Error('not restored');
    expect(await restore(undone.verb, undone.kept)).toMatchObject({ restored: true, rowsAffected: 2, verb: 'UPDATE' });
    expect(await snapshot()).toEqual(updated);
  });

  it('keeps the rows as the write changed them when another session changed them first', async () => {
    // Another session's change is not committed yet: the kept write waits for its row, then keeps what it found.
    await fixture.query('BEGIN');
    await fixture.query("UPDATE awkward SET note = 'first' WHERE id = 9007199254740993");
    const pending = keep('UPDATE', statements.update, ['!', 'eu']);
    await untilPasses(async () => expect(await sluiceBusy()).toBe(1));
    await fixture.query('COMMIT');
    const kept = keptOf(await pending);
    expect(kept.before.map((row) => row.at(-1))).toEqual(['trailing   ', 'first']);
    expect(await restore('UPDATE', kept)).toMatchObject({ restored: true, rowsAffected: 2 });
    expect(await fixture.query('SELECT note FROM awkward WHERE id = 9007199254740993')).toEqual([['first']]);
  });

  it('stops a kept write past its timeout, or cancelled, changing nothing', async () => {
    const original = await snapshot();
    await fixture.query('BEGIN');
    await fixture.query("UPDATE awkward SET note = 'held' WHERE id = 1");
    await expect(keep('DELETE', statements.deleteUs, ['us'], { timeoutMs: 300 })).rejects.toMatchObject({ kind: 'statement_timeout' });
    const controller = new AbortController();
    const reason = new Error('cancelled by the test');
    const pending = keep('DELETE', statements.deleteUs, ['us'], { signal: controller.signal });
    await untilPasses(async () => expect(await sluiceBusy()).toBe(1));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await untilPasses(async () => expect(await sluiceBusy()).toBe(0));
    await fixture.query('ROLLBACK');
    expect(await snapshot()).toEqual(original);
  });

  it('keeps nothing past maxRows or maxBytes, and the write still commits', async () => {
    const original = await snapshot();
    const byRows = await keep('UPDATE', statements.update, ['!', 'eu'], { maxRows: 1 });
    expect(byRows).toEqual({ result: { columns: [], rows: [], truncated: false, cellsCut: 0, rowsAffected: 2 }, notKept: `it changes more than 1 rows or ${UNDO.maxBytes} bytes of them` });
    expect(await snapshot()).not.toEqual(original);
    const byBytes = await keep('DELETE', statements.deleteUs, ['us'], { maxBytes: 100 });
    expect(byBytes).toMatchObject({ result: { rowsAffected: 2 }, notKept: `it changes more than ${UNDO.maxRows} rows or 100 bytes of them` });
    const inserted = await keep('INSERT', statements.insert, ['  x  '], { maxBytes: 100 });
    expect(inserted).toMatchObject({ result: { rowsAffected: 1 }, notKept: `it changes more than ${UNDO.maxRows} rows or 100 bytes of them` });
    expect(await fixture.query('SELECT region, note FROM awkward ORDER BY region, id')).toEqual([
      ['ap', '  x  '],
      ['eu', 'trailing   !'],
      ['eu', `${EU_ROWS[engine][1]?.at(-1) as string}!`],
    ]);
  });

  it('keeps a write of exactly maxRows rows', async () => {
    const kept = keptOf(await keep('DELETE', statements.deleteUs, ['us'], { maxRows: 2 }));
    expect(kept.before.map((row) => row.slice(0, 2))).toEqual([['us', '1'], ['us', '2']]);
  });

  it('keeps nothing of an UPDATE that changes key columns, and the write still commits', async () => {
    const write = await keep('UPDATE', statements.moveKeys, ['us']);
    expect(write).toEqual({ result: { columns: [], rows: [], truncated: false, cellsCut: 0, rowsAffected: 2 }, notKept: 'it changed key columns' });
    expect(await fixture.query("SELECT id FROM awkward WHERE region = 'us' ORDER BY id")).toEqual(engine === 'postgres' ? [['11'], ['12']] : [[11], [12]]);
  });

  it('rolls everything back when the statement fails', async () => {
    const original = await snapshot();
    await expect(keep('UPDATE', statements.collide, ['us'])).rejects.toThrow(engine === 'postgres' ? /duplicate key value/ : /Duplicate entry/);
    expect(await snapshot()).toEqual(original);
  });

  it('matches rows by a unique key of columns never null', async () => {
    const original = await snapshot('tagged');
    const updated = keptOf(await keep('UPDATE', statements.tag, ['b-2'], {}, 'tagged'));
    expect(updated.keys).toEqual([0]);
    expect(updated.before).toEqual([['a-1', 'first', '1'], ['c-3', '  third ', '3']]);
    expect(updated.after).toEqual([['a-1', 'first.', '7'], ['c-3', '  third .', '7']]);
    expect(await restore('UPDATE', updated, false, 'tagged')).toMatchObject({ restored: true, rowsAffected: 2 });
    expect(await snapshot('tagged')).toEqual(original);
    const deleted = keptOf(await keep('DELETE', 'DELETE FROM tagged', [], {}, 'tagged'));
    expect(deleted.before).toEqual([['a-1', 'first', '1'], ['b-2', 'second', null], ['c-3', '  third ', '3']]);
    expect(await restore('DELETE', deleted, false, 'tagged')).toMatchObject({ restored: true, rowsAffected: 3 });
    expect(await snapshot('tagged')).toEqual(original);
  });

  it("inserts a DELETE's rows again with the keys the database generated for them", async () => {
    const original = await snapshot('numbered');
    const kept = keptOf(await keep('DELETE', 'DELETE FROM numbered', [], {}, 'numbered'));
    expect(kept.before.map((row) => row[1])).toEqual(['one', 'two']);
    expect(await restore('DELETE', kept, false, 'numbered')).toMatchObject({ restored: true, rowsAffected: 2 });
    expect(await snapshot('numbered')).toEqual(original);
  });

  it('keeps the columns a table stores of its own, and lets the database compute its generated ones again', async () => {
    const original = await snapshot('derived');
    const update = `UPDATE derived SET a = a + 1 WHERE id > ${engine === 'postgres' ? '$1' : '?'}`;
    const updated = keptOf(await keep('UPDATE', update, [0], {}, 'derived'));
    expect(updated).toEqual({ columns: ['id', 'a'], keys: [0], before: [['1', '10'], ['2', '21']], after: [['1', '11'], ['2', '22']] });
    expect(await restore('UPDATE', updated, false, 'derived')).toMatchObject({ restored: true, rowsAffected: 2 });
    expect(await snapshot('derived')).toEqual(original);
    const deleted = keptOf(await keep('DELETE', 'DELETE FROM derived', [], {}, 'derived'));
    expect(await restore('DELETE', deleted, false, 'derived')).toMatchObject({ restored: true, rowsAffected: 2 });
    expect(await snapshot('derived')).toEqual(original);
  });
});
