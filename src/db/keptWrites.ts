import type { ColumnDescription, ResultSet, Rows } from './database.js';
import type { RowSelection } from '../sql/countQuery.js';

/**
 * A value exactly as the engine holds it, in a form JSON keeps: text as the engine writes the value
 * (PostgreSQL's text output, MySQL's text protocol, DuckDB's cast to VARCHAR), an integer (`i`) or a
 * float (`f`) where the engine stores the type with the value (SQLite), bytes in base64 (`b`). Written
 * back through the same engine, it gives the same bytes.
 */
export type ExactValue = null | string | { i: string } | { f: string } | { b: string };

/** The verbs whose rows are kept, and so can be put back. */
export type KeptVerb = 'INSERT' | 'UPDATE' | 'DELETE';

/** The one table a kept write changes, and the key its rows are matched by (primary key, else a unique key of columns never null). */
export type KeptTable = {
  schema: string;
  name: string;
  /** As the statement writes it, alias included (the row selection's target). */
  target: string;
  keys: string[];
  columns: ColumnDescription[];
};

/**
 * An approved write to run with its rows kept: in one transaction on a write session, the rows it will
 * change as they are (`selection`, an UPDATE's or DELETE's), the statement as approved, and the rows as
 * they are afterwards (an INSERT's, returned; an UPDATE's, read again by key). Past `maxRows` or
 * `maxBytes` of kept rows, nothing is kept and the write still runs.
 */
export type KeepPlan = {
  verb: KeptVerb;
  sql: string;
  params: unknown[];
  table: KeptTable;
  selection?: RowSelection;
  maxRows: number;
  maxBytes: number;
  /** The budget of the write's own answer (its RETURNING rows), as `Database.write`'s options; absent, `RESULTS.defaultRows` and `defaultBytes`. */
  answer?: { maxRows: number; maxBytes?: number };
  timeoutMs: number;
  signal: AbortSignal;
};

/**
 * A table's rows before and after one write, in exact values; `keys` are indexes into `columns`. An
 * INSERT's are all after, a DELETE's all before; an UPDATE's are paired by position, and in an undo's
 * UPDATE (restoreSteps.js) either side of a pair may be null: the row was absent there (a forced undo
 * inserted it again, or deleted it). A kept write's own rows are never null (`KeptRows<ExactValue[]>`).
 */
export type KeptRows<Row extends ExactValue[] | null = ExactValue[] | null> = { columns: string[]; keys: number[]; before: Row[]; after: Row[] };

/** The approved write's outcome (as `Database.write` answers it), with its rows kept, or why they were not. */
export type KeptWrite = { result: ResultSet<Rows>; kept: KeptRows<ExactValue[]> } | { result: ResultSet<Rows>; notKept: string };

/**
 * Puts back the rows a kept write changed, in one transaction on a write session: an INSERT's rows
 * deleted, an UPDATE's old values set again, a DELETE's rows inserted, each matched by key. A row that
 * is no longer as the write left it stops the whole undo (nothing changes), unless `force`.
 */
export type RestorePlan = {
  /** The verb of the write being taken back. */
  verb: KeptVerb;
  table: Pick<KeptTable, 'schema' | 'name'>;
  rows: KeptRows;
  force: boolean;
  timeoutMs: number;
  signal: AbortSignal;
};

/** One row that changed since the write: its key, how it is now (null: gone) and how the write left it (null: absent). */
export type RowDifference = { key: ExactValue[]; now: ExactValue[] | null; expected: ExactValue[] | null };

/**
 * The undo done, with its own rows kept so that it can itself be taken back: every row it touched, as it
 * found it and as it left it, whatever that row was (so `force` too is taken back exactly). `verb` is
 * INSERT when it only inserted rows, DELETE when it only deleted, else UPDATE (a pair's side null where
 * the row was absent); or the rows that stopped it.
 */
export type Restored = { restored: true; rowsAffected: number; verb: KeptVerb; kept: KeptRows } | { restored: false; differs: RowDifference[] };
