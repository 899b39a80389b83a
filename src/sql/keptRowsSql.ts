import type { Engine } from '../core/shared/engineNames.js';
import type { SqlDialect } from './browseSql.js';
import type { RowSelection } from './countQuery.js';
import { insertTried } from './rehearsalSql.js';

/** A table column by name and declared type, as the catalogue describes it. */
export type TypedColumn = { name: string; type: string };

/**
 * How an engine reads a column in exact form and binds an exact value back (db/keptWrites.ts ExactValue):
 * SQLite reads and binds values as they are (its driver keeps the storage class); DuckDB reads a cast to
 * VARCHAR (a BLOB in base64) and binds text cast to the column's type.
 */
export type ExactDialect = SqlDialect & {
  /** The column read in exact form, for a select list. */
  read(column: TypedColumn): string;
  /** The n-th (1-based) bound exact value, written as the column's type. */
  bound(n: number, column: TypedColumn): string;
  /**
   * What ends the read of the rows before so that it locks them until the transaction ends (` FOR UPDATE`),
   * where other sessions could change them between that read and the write: else the write would change
   * a row as another session left it and keep it as it was before, and its undo would undo that session too.
   */
  lockRows?: string;
  /**
   * Whether an undo sets rows back and inserts them a batch at a time (`updateBackMany`, `insertBackMany`)
   * rather than one statement a row: DuckDB, where each statement of a row costs milliseconds.
   */
  setsBackInBatches?: boolean;
  /** What an INSERT of a row as it was says before VALUES so that a column the database always generates takes the kept value (` OVERRIDING SYSTEM VALUE`). */
  overriding?: string;
};

/** A table by its schema and name, unquoted. */
export type NamedTable = { schema: string; name: string };

const tableName = (table: NamedTable, dialect: SqlDialect) => `${dialect.quoteIdent(table.schema)}.${dialect.quoteIdent(table.name)}`;
const selectList = (columns: TypedColumn[], dialect: ExactDialect) => columns.map((c) => dialect.read(c)).join(', ');
const keyColumns = (columns: TypedColumn[], keys: number[]) => keys.map((k) => columns[k] as TypedColumn);

/** `k1 = b AND k2 = b`, the key's values bound from placeholder `from` on. */
const keyMatch = (keys: TypedColumn[], from: number, dialect: ExactDialect) =>
  keys.map((key, i) => `${dialect.quoteIdent(key.name)} = ${dialect.bound(from + i, key)}`).join(' AND ');

/**
 * The rows an UPDATE or DELETE will change, as they are, in exact form and key order: `limit` at most (one
 * past the rows kept is enough to know there are more), so that the server neither sends nor locks more.
 */
export function keptRowsBefore(selection: RowSelection, columns: TypedColumn[], keys: number[], limit: number, dialect: ExactDialect): string {
  const order = keyColumns(columns, keys).map((k) => dialect.quoteIdent(k.name));
  const where = selection.condition === undefined ? '' : ` WHERE ${selection.condition}`;
  return `SELECT ${selectList(columns, dialect)} FROM ${selection.target}${where} ORDER BY ${order.join(', ')} LIMIT ${Math.floor(limit)}${dialect.lockRows ?? ''}`;
}

/**
 * A plain INSERT that returns the rows it adds in exact form, in place of its final semicolon; refused as
 * `insertTried` refuses (an upsert, a RETURNING of its own, anything but a plain INSERT INTO).
 */
export function insertKept(sql: string, columns: TypedColumn[], engine: Engine, dialect: ExactDialect): { sql: string } | { refused: string } {
  const tried = insertTried(sql, engine);
  if ('refused' in tried) return tried;
  return { sql: `${tried.sql.slice(0, -'*'.length)}${selectList(columns, dialect)}` };
}

/**
 * The rows of `batch` keys at once, in exact form: bound to the key values of `batch` rows in order (a
 * shorter batch repeats its last key). Rows come in no particular order.
 */
export function rowsByKeys(table: NamedTable, columns: TypedColumn[], keys: number[], batch: number, dialect: ExactDialect): string {
  const key = keyColumns(columns, keys);
  const matches = Array.from({ length: batch }, (_, row) => `(${keyMatch(key, row * key.length + 1, dialect)})`);
  return `SELECT ${selectList(columns, dialect)} FROM ${tableName(table, dialect)} WHERE ${matches.join(' OR ')}`;
}

/** Deletes one row, bound to its key's values. */
export function deleteByKey(table: NamedTable, columns: TypedColumn[], keys: number[], dialect: ExactDialect): string {
  return `DELETE FROM ${tableName(table, dialect)} WHERE ${keyMatch(keyColumns(columns, keys), 1, dialect)}`;
}

/**
 * Sets one row back by its key (which a kept UPDATE never changed): every column but the key's, bound to
 * those columns' values in order, then to the key's values. A table of key columns alone sets its key to itself.
 */
export function updateBack(table: NamedTable, columns: TypedColumn[], keys: number[], dialect: ExactDialect): string {
  const set = setColumns(columns, keys);
  const assignments = set.map((c, i) => `${dialect.quoteIdent(c.name)} = ${dialect.bound(i + 1, c)}`).join(', ');
  return `UPDATE ${tableName(table, dialect)} SET ${assignments} WHERE ${keyMatch(keyColumns(columns, keys), set.length + 1, dialect)}`;
}

/**
 * Sets `batch` rows back at once by their keys, as `updateBack` sets one: an UPDATE from a list of
 * `batch` rows of values, each bound as `updateBack` binds its row (the set columns', then the key's),
 * joined to the table by key. The keys must differ (a row matched twice would be set twice).
 */
export function updateBackMany(table: NamedTable, columns: TypedColumn[], keys: number[], batch: number, dialect: ExactDialect): string {
  const set = setColumns(columns, keys);
  const key = keyColumns(columns, keys);
  const width = set.length + key.length;
  const rows = Array.from({ length: batch }, (_, row) => `(${[...set, ...key].map((c, i) => dialect.bound(row * width + i + 1, c)).join(', ')})`);
  const value = (i: number) => `${dialect.quoteIdent('v')}.${dialect.quoteIdent(`c${i + 1}`)}`;
  const target = dialect.quoteIdent('t');
  const assignments = set.map((c, i) => `${dialect.quoteIdent(c.name)} = ${value(i)}`).join(', ');
  const match = key.map((k, i) => `${target}.${dialect.quoteIdent(k.name)} = ${value(set.length + i)}`).join(' AND ');
  const names = Array.from({ length: width }, (_, i) => dialect.quoteIdent(`c${i + 1}`)).join(', ');
  return `UPDATE ${tableName(table, dialect)} AS ${target} SET ${assignments} FROM (VALUES ${rows.join(', ')}) AS ${dialect.quoteIdent('v')}(${names}) WHERE ${match}`;
}

/** The columns `updateBack` sets: all but the key's, or the key's when there are no others (restoreSteps.js binds the same). */
function setColumns(columns: TypedColumn[], keys: number[]): TypedColumn[] {
  const others = columns.filter((_, i) => !keys.includes(i));
  return others.length > 0 ? others : keyColumns(columns, keys);
}

/** Inserts one row, bound to all its values in column order. */
export function insertBack(table: NamedTable, columns: TypedColumn[], dialect: ExactDialect): string {
  return insertBackMany(table, columns, 1, dialect);
}

/** Inserts `batch` rows, bound to all their values, row after row in column order. */
export function insertBackMany(table: NamedTable, columns: TypedColumn[], batch: number, dialect: ExactDialect): string {
  const names = columns.map((c) => dialect.quoteIdent(c.name)).join(', ');
  const rows = Array.from({ length: batch }, (_, row) => `(${columns.map((c, i) => dialect.bound(row * columns.length + i + 1, c)).join(', ')})`);
  return `INSERT INTO ${tableName(table, dialect)} (${names})${dialect.overriding ?? ''} VALUES ${rows.join(', ')}`;
}
