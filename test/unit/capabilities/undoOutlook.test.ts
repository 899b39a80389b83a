import { describe, expect, it } from 'vitest';
import { keepPlanOf, UNDO_ON, undoOutlook, type UndoSettings } from '../../../src/capabilities/undoOutlook.js';
import type { OneTableWrite, WriteAnalysis } from '../../../src/capabilities/writeAnalysis.js';
import type { Database, Engine, TableDescription } from '../../../src/db/database.js';
import type { EffectPreview } from '../../../src/runtime/consentDialogs.js';
import { assignedColumns } from '../../../src/sql/updatedColumns.js';

/**
 * Whether a write can be undone, decided before approval (capabilities/undoOutlook.ts) from the one
 * analysis the rehearsal shares (writeAnalysis.ts): each reason it cannot, in the words the dialog shows.
 */

const signal = new AbortController().signal;
const BOOKS: TableDescription = {
  schema: 'main',
  name: 'books',
  type: 'table',
  columns: [
    { name: 'id', type: 'INTEGER', nullable: false, default: null, primary_key: true },
    { name: 'title', type: 'TEXT', nullable: false, default: null, primary_key: false },
  ],
  primary_key: ['id'],
  indexes: [],
  foreign_keys: [],
};
const PLAIN = { triggers: false, cascades: false, sequence: false };

function dbOf(engine: Engine, members: Partial<Database> = {}): Database {
  return { engine, keepWrite: async () => ({ result: { columns: [], rows: [], rowsAffected: 0 }, notKept: 'unused' }), ...members } as unknown as Database;
}
const write = (verb: OneTableWrite['verb'], more: Partial<OneTableWrite> = {}): OneTableWrite => ({
  verb,
  table: BOOKS,
  target: 'books',
  keys: ['id'],
  escapes: PLAIN,
  ...(verb === 'INSERT' ? {} : { selection: { target: 'books', condition: 'id < 3', params: [] } }),
  ...more,
});

async function outlook(sql: string, analysis: WriteAnalysis, options: { db?: Database; effect?: EffectPreview; settings?: Partial<UndoSettings> } = {}) {
  let asked = 0;
  const analyse = async () => {
    asked++;
    return analysis;
  };
  const answer = await undoOutlook(options.db ?? dbOf('sqlite'), { sql, params: [] }, analyse, options.effect, { ...UNDO_ON, ...options.settings }, signal);
  return { answer, asked };
}

describe('what the dialog says of undo', () => {
  it('can be undone: a plain INSERT, UPDATE or DELETE of one keyed table, within the row bound', async () => {
    expect((await outlook("INSERT INTO books VALUES (1, 'x')", write('INSERT'))).answer).toEqual({ possible: true });
    expect((await outlook("UPDATE books SET title = 'x' WHERE id < 3", write('UPDATE'), { effect: { rows: 2, basis: 'exact', columns: [], changes: [] } })).answer).toEqual({ possible: true });
    expect((await outlook('DELETE FROM books WHERE id < 3', write('DELETE'), { effect: { rows: 10_000, basis: 'counted' } })).answer).toEqual({ possible: true });
    // A sequence (an INSERT's serial key) does not stop it: the table's rows are what an undo puts back.
    expect((await outlook("INSERT INTO books (title) VALUES ('x')", write('INSERT', { escapes: { ...PLAIN, sequence: true } }))).answer).toEqual({ possible: true });
  });

  it('cannot: undo off, an engine that keeps no rows, or one that cannot keep this verb — before any catalogue read', async () => {
    const off = await outlook('DELETE FROM books WHERE id = 1', write('DELETE'), { settings: { enabled: false } });
    expect(off).toEqual({ answer: { possible: false, why: 'undo is turned off (the "undo" setting)' }, asked: 0 });
    const noKeep = await outlook('DELETE FROM books WHERE id = 1', write('DELETE'), { db: dbOf('duckdb', { keepWrite: undefined }) });
    expect(noKeep).toEqual({ answer: { possible: false, why: "DuckDB connections cannot keep a write's rows" }, asked: 0 });
    const mysql = dbOf('mysql', { whyNotKept: async (verb) => (verb === 'INSERT' ? 'MySQL cannot return the rows an INSERT adds' : undefined) });
    expect((await outlook("INSERT INTO books VALUES (1, 'x')", write('INSERT'), { db: mysql })).answer).toEqual({ possible: false, why: 'MySQL cannot return the rows an INSERT adds' });
    expect((await outlook('DELETE FROM books WHERE id = 1', write('DELETE'), { db: mysql })).answer).toEqual({ possible: true });
  });

  it('cannot: a statement that is not one plain INSERT, UPDATE or DELETE of one table', async () => {
    const cases: Array<[string, WriteAnalysis, string]> = [
      ['WITH x AS (SELECT 1) DELETE FROM books', { notOneTable: 'x' }, 'a statement starting with WITH may write more than one table'],
      ['MERGE INTO books USING b ON true WHEN MATCHED THEN DELETE', { notOneTable: 'x' }, 'a statement starting with MERGE may write more than one table'],
      ["REPLACE INTO books VALUES (1, 'x')", { notOneTable: 'x' }, 'a statement starting with REPLACE may write more than one table'],
      ['DROP TABLE books', { notOneTable: 'x' }, 'only an INSERT, UPDATE or DELETE of one table can be undone'],
      ["INSERT INTO books VALUES (1, 'x') ON CONFLICT DO NOTHING", { notOneTable: 'with ON CONFLICT it may change rows already there' }, 'it is not one plain INSERT, UPDATE or DELETE of one table (with ON CONFLICT it may change rows already there)'],
      ['DELETE FROM books b USING authors a WHERE a.id = b.author_id', { notOneTable: 'the target is not one plain table' }, 'it is not one plain INSERT, UPDATE or DELETE of one table (the target is not one plain table)'],
      ['DELETE FROM books WHERE id = 1 RETURNING id', write('DELETE'), 'it has a RETURNING clause of its own'],
    ];
    for (const [sql, analysis, why] of cases) expect({ sql, ...(await outlook(sql, analysis)).answer }).toEqual({ sql, possible: false, why });
  });

  it('cannot: no key, escapes to other tables, or an UPDATE of key columns', async () => {
    const why = async (sql: string, analysis: WriteAnalysis) => ((await outlook(sql, analysis)).answer as { why: string }).why;
    expect(await why('DELETE FROM books WHERE id = 1', write('DELETE', { keys: [] }))).toBe('books has no primary key or unique key of columns never null, to match its rows by');
    expect(await why('DELETE FROM books WHERE id = 1', write('DELETE', { escapes: { ...PLAIN, triggers: true } }))).toBe('books has triggers, whose effects an undo could not take back');
    expect(await why("INSERT INTO books VALUES (1, 'x')", write('INSERT', { escapes: { ...PLAIN, cascades: true } }))).toBe(
      'foreign keys of other tables cascade from books, so the write or its undo would change more than one table',
    );
    expect(await why('DELETE FROM books WHERE id = 1', write('DELETE', { escapes: { ...PLAIN, notPlain: 'a view' } }))).toBe('books is a view');
    expect(await why('UPDATE books SET "id" = 5, title = 1 WHERE id = 1', write('UPDATE'))).toBe('it changes key columns (id), which its rows are matched by');
    expect(await why('UPDATE books b SET (title, ID) = (1, 2) WHERE id = 1', write('UPDATE'))).toBe('it changes key columns (id), which its rows are matched by');
    // A quoted name is that name exactly: "ID" is not the key id.
    expect((await outlook('UPDATE books SET "ID" = 5 WHERE id = 1', write('UPDATE'))).answer).toEqual({ possible: true });
  });

  it('cannot: more rows than an undo keeps, counted by the exact effect or else the estimate', async () => {
    const over = (rows: number, basis: 'exact' | 'counted' | 'planner') =>
      outlook('DELETE FROM books WHERE id > 0', write('DELETE'), { effect: basis === 'exact' ? { rows, basis, columns: [], changes: [] } : { rows, basis }, settings: { maxRows: 100 } });
    expect((await over(101, 'exact')).answer).toEqual({ possible: false, why: 'it changes 101 rows, more than the 100 rows an undo keeps' });
    expect((await over(5_000, 'planner')).answer).toEqual({ possible: false, why: 'it changes 5000 rows, more than the 100 rows an undo keeps' });
    expect((await over(100, 'counted')).answer).toEqual({ possible: true });
    // No count at all: the write still keeps at most maxRows when it runs, and says so on its activity row if it could not.
    expect((await outlook('DELETE FROM books WHERE id > 0', write('DELETE'), { effect: { rows: null, reason: 'slow' }, settings: { maxRows: 1 } })).answer).toEqual({ possible: true });
  });

  it('plans the kept write from the same analysis: its table, key, selection and bounds', () => {
    const analysis = write('UPDATE');
    expect(keepPlanOf(analysis, { sql: "UPDATE books SET title = 'x' WHERE id < 3", params: [7] }, { enabled: true, maxRows: 5, maxBytes: 99 }, { maxRows: 1000, timeoutMs: 30_000, signal })).toEqual({
      verb: 'UPDATE',
      sql: "UPDATE books SET title = 'x' WHERE id < 3",
      params: [7],
      table: { schema: 'main', name: 'books', target: 'books', keys: ['id'], columns: BOOKS.columns },
      selection: analysis.selection,
      maxRows: 5,
      maxBytes: 99,
      answer: { maxRows: 1000 },
      timeoutMs: 30_000,
      signal,
    });
  });
});

describe('the columns an UPDATE assigns', () => {
  it('reads plain, qualified, quoted and tuple assignments up to WHERE, FROM or RETURNING', () => {
    expect(assignedColumns("UPDATE t SET a = 1, b = f(x, y), c = (SELECT 1, 2) WHERE a = 1", 'postgres')).toEqual([
      { name: 'a', quoted: false },
      { name: 'b', quoted: false },
      { name: 'c', quoted: false },
    ]);
    expect(assignedColumns('UPDATE s.t AS x SET x.a = CASE WHEN b THEN 1 ELSE 2 END, "Odd ""q""" = 3 RETURNING *', 'postgres')).toEqual([
      { name: 'a', quoted: false },
      { name: 'Odd "q"', quoted: true },
    ]);
    expect(assignedColumns('UPDATE t SET (a, b) = (1, 2), `c` = 3 ORDER BY a LIMIT 1', 'mysql')).toEqual([
      { name: 'a', quoted: false },
      { name: 'b', quoted: false },
      { name: 'c', quoted: true },
    ]);
  });

  it('answers nothing for what it cannot read plainly', () => {
    for (const sql of ['DELETE FROM t', 'UPDATE t SET', 'UPDATE t SET 1 = 2', 'UPDATE t SET (a, 1) = (1, 2)', "UPDATE t SET a = 'x\0'"]) {
      expect({ sql, columns: assignedColumns(sql, 'sqlite') }).toEqual({ sql, columns: undefined });
    }
  });
});
