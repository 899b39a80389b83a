import type { Database, TableDescription } from '../db/database.js';
import type { TableEscapes } from '../db/engines/engineModule.js';
import { engineModule } from '../db/engines/registry.js';
import type { RowSelection } from '../sql/countQuery.js';
import { insertTried, selectedTable, type WrittenTable } from '../sql/rehearsalSql.js';
import { tokenize } from '../sql/tokens.js';

export type WriteStatement = { sql: string; params: unknown[] };
export type WriteVerb = 'INSERT' | 'UPDATE' | 'DELETE';

/**
 * One INSERT, UPDATE or DELETE of one plain table, as both its rehearsal (exactEffect.ts) and its undo
 * (undoOutlook.ts) read it: the table described, the key its rows pair by, what could escape a
 * transaction on it, and how its rows are selected (an UPDATE or DELETE) or tried (an INSERT with
 * `RETURNING *`).
 */
export type OneTableWrite = {
  verb: WriteVerb;
  table: TableDescription;
  /** The table as the statement writes it, alias included. */
  target: string;
  /** Primary key, else the first unique index of columns never null; empty when there is neither. */
  keys: string[];
  escapes: TableEscapes;
  /** An UPDATE's or DELETE's own table and condition. */
  selection?: RowSelection;
  /** An INSERT as it is tried: the statement with `RETURNING *`. */
  tried?: string;
};

/** The analysis of a write: one table's, or why it is not one plain INSERT, UPDATE or DELETE of one table. */
export type WriteAnalysis = OneTableWrite | { notOneTable: string };

/** The last statement's verb: a dialog asks for it several times, and each answer is a pass of the lexer over the whole text. */
let lastVerb: { sql: string; engine: Database['engine']; verb: string } | undefined;

/** The statement's first word: its verb, or WITH, MERGE, REPLACE…; '' when it has none. */
export function verbOf(sql: string, db: Pick<Database, 'engine'>): string {
  if (lastVerb?.sql !== sql || lastVerb.engine !== db.engine) lastVerb = { sql, engine: db.engine, verb: tokenize(sql, db.engine).find((t) => t.kind === 'word')?.text ?? '' };
  return lastVerb.verb;
}

/** The key that pairs a row before and after: the primary key, else the first unique index of columns that are never null. */
export function keyOf(table: TableDescription): string[] {
  if (table.primary_key.length > 0) return table.primary_key;
  const notNull = new Set(table.columns.filter((c) => !c.nullable).map((c) => c.name));
  return table.indexes.find((index) => index.unique && index.columns.every((c) => notNull.has(c)))?.columns ?? [];
}

/**
 * Why a write of `verb` to `table` would change more than the table's own rows, as its transaction sees
 * them, or undefined: not a plain table, triggers, cascading foreign keys, (an INSERT) a sequence.
 */
export function escapeOf(table: TableDescription, verb: WriteVerb, escapes: TableEscapes): string | undefined {
  if (escapes.notPlain) return `${table.name} is ${escapes.notPlain}`;
  if (escapes.triggers) return `${table.name} has triggers, whose effects Sluice cannot see`;
  if (verb !== 'INSERT' && escapes.cascades) return `foreign keys of other tables cascade from ${table.name}, so it would change more than one table`;
  if (verb === 'INSERT' && escapes.sequence) return `an INSERT into ${table.name} draws from a sequence, which a rollback does not take back`;
  return undefined;
}

async function described(db: Database, written: WrittenTable | undefined, signal: AbortSignal): Promise<{ table: TableDescription; escapes: TableEscapes } | undefined> {
  const table = written && (await db.describeTable(written.schema ?? db.defaultSchema(), written.name, signal));
  if (!table) return undefined;
  return { table, escapes: await engineModule(db.engine).effects.tableEscapes(db, table, signal) };
}

/**
 * Reads a write once for everything that decides before consent: its verb, its one table (described,
 * with its key and escapes) and how its rows are found. A catalogue read that fails throws (DriverFailure).
 */
export async function analyseWrite(db: Database, statement: WriteStatement, signal: AbortSignal): Promise<WriteAnalysis> {
  const verb = verbOf(statement.sql, db);
  if (verb === 'WITH' || verb === 'MERGE' || verb === 'REPLACE') return { notOneTable: `a statement starting with ${verb} is not tried (it may write more than one table)` };
  if (verb === 'INSERT') {
    const insert = insertTried(statement.sql, db.engine);
    if ('refused' in insert) return { notOneTable: insert.refused };
    const found = await described(db, insert.table, signal);
    if (!found) return { notOneTable: 'its table was not found' };
    return { verb, ...found, target: insert.table.target, keys: keyOf(found.table), tried: insert.sql };
  }
  if (verb !== 'UPDATE' && verb !== 'DELETE') return { notOneTable: 'only INSERT, UPDATE and DELETE are tried' };
  const selection = await engineModule(db.engine).effects.rowSelection(statement.sql, statement.params).catch(() => ({ refused: 'the statement could not be read' }));
  if ('refused' in selection) return { notOneTable: selection.refused };
  const written = selectedTable(selection, db.engine);
  const found = await described(db, written, signal);
  if (!written || !found) return { notOneTable: 'its table was not found' };
  return { verb, ...found, target: written.target, keys: keyOf(found.table), selection };
}
