import { RawJson } from '../protocol/rawJson.js';
import { type Engine, ENGINE_NAMES as SHARED_ENGINE_NAMES } from '../core/shared/engineNames.js';
import type { BrowseRequest } from '../sql/browseSql.js';
import type { ColumnOrigin } from './connections/columnPolicy.js';
import type { KeepPlan, KeptVerb, KeptWrite, RestorePlan, Restored } from './keptWrites.js';
import type { RehearsalPlan, Rehearsed } from './rehearsal.js';

export type { Engine };

/** What every engine's driver offers the capabilities. Identifiers arrive unquoted; drivers quote them. */

/**
 * A result column: its name, the engine's type name and, where the driver says so, its origin: the table
 * column it is a plain read of (PostgreSQL's table OID and column number, MySQL's original table and name,
 * SQLite's column metadata). Private columns are recognised by it (capabilities/privateColumns.ts).
 */
export type Column = { name: string; type: string; origin?: ColumnOrigin };

/**
 * Rows as JSON text (an array of arrays), serialised where the query ran; `length` counts them. `lines`,
 * where the driver wrote them too, are the rows as the lines of the result's text (capabilities/
 * resultText.ts, one `rowText` of db/results/valueText.js per row, joined by line breaks), JSON-escaped: the
 * inside of a JSON string, spliced into the response as it stands.
 */
export class JsonRows extends RawJson {
  constructor(
    text: string,
    readonly length: number,
    readonly lines?: string,
    /**
     * The same text as the pieces it was concatenated from, rows (each piece whole rows, joined by commas,
     * without the brackets) and lines (joined by escaped line breaks): scanned a piece at a time, a long
     * concatenation is never flattened in one go (16 MiB of it took 20 ms).
     */
    readonly pieces?: { rows: readonly string[]; lines: readonly string[] },
  ) {
    super(text);
  }

  /** Rows and lines made a piece at a time, concatenated (not copied) into one text. */
  static joined(rows: readonly string[], lines: readonly string[], length: number): JsonRows {
    let json = '';
    let text = '';
    rows.forEach((piece, i) => {
      json = i === 0 ? piece : `${json},${piece}`;
      text = i === 0 ? (lines[i] as string) : `${text}\\n${lines[i] as string}`;
    });
    return new JsonRows(`[${json}]`, length, text, { rows, lines });
  }
}

/** The pieces of `rows`' JSON text (whole rows, without the brackets), as made. */
export const rowPieces = (rows: JsonRows): readonly string[] => rows.pieces?.rows ?? [rows.text.slice(1, -1)];

/** Rows as values, or as JSON text when the caller asked for `rowsAs: 'json'` and the driver can. */
export type Rows = unknown[][] | JsonRows;

export const valuesOf = (rows: Rows): unknown[][] => (rows instanceof JsonRows ? (JSON.parse(rows.text) as unknown[][]) : rows);

export type ResultSet<R extends Rows = unknown[][]> = {
  columns: Column[];
  rows: R;
  /** Rows were left out: past `maxRows`, or (`truncatedBy: 'max_bytes'`) past the byte budget. */
  truncated: boolean;
  truncatedBy?: 'max_rows' | 'max_bytes';
  /** Cells cut to the cell limit, each ending in a `…[cut: N characters in all]` marker. */
  cellsCut?: number;
  /** Columns an answer left out, with their values, past its byte budget (`truncatedBy: 'max_bytes'`). */
  columnsLeftOut?: number;
  /** JSON values returned as their text (db/results/jsonText.js). */
  valuesAsText?: number;
  /** Rows a write changed; 0 for a read. */
  rowsAffected: number;
};

export type ReadOptions = {
  params?: unknown[];
  maxRows: number;
  /**
   * Bytes of the rows' JSON at most (`RESULTS.defaultBytes` in core/contract.js when absent); with
   * `rowsAs: 'json'`, bytes of the answer: columns, and rows as JSON and as text (db/results/resultBudget.js).
   */
  maxBytes?: number;
  timeoutMs: number;
  signal: AbortSignal;
  /** Rows that only pass through to a client may come back as JsonRows, where the driver can. */
  rowsAs?: 'values' | 'json';
};

/**
 * A read handed on a page at a time (`Database.readPages`): the next page is read only once the
 * promise `onPage` returned has settled, so the reader never runs ahead of what consumes it.
 */
export type PageReader = (rows: unknown[][], columns: Column[]) => Promise<void>;

/** How a paged read ended: its columns, the rows handed on, and why it stopped short, as a ResultSet says. */
export type PagedRead = Omit<ResultSet, 'rows' | 'rowsAffected'> & { rows: number; cellsCut: number };

/**
 * How many of a held read's page rows its reader hands on (the token budget may keep fewer than the
 * driver read); `more` when the driver left rows unread after the page. The rows not handed on start the
 * next page. Absent, every row of the page is handed on.
 */
export type HandOn = (page: ResultSet<Rows>, more: boolean) => Promise<number>;

/** What one page of a held read may take, as `ReadOptions` says, and how many of its rows leave (`handOn`). */
export type PageOptions = Pick<ReadOptions, 'maxRows' | 'maxBytes' | 'timeoutMs' | 'signal'> & { handOn?: HandOn };

/** `ReadOptions` of a held read's first page, and how many of its rows leave. */
export type HoldOptions = ReadOptions & Pick<PageOptions, 'handOn'>;

/**
 * The rest of a read whose first page was cut (`Database.holdRead`): its statement stays open on one
 * session of the connection's pool, in a read-only transaction that sees one snapshot, until `close`.
 */
export type HeldRead = {
  /**
   * The rows after those handed on so far, as many as `options` take, and whether rows remain after
   * those of them `options.handOn` hands on (read or not yet read).
   */
  next(options: PageOptions): Promise<HeldPage>;
  /** Ends the statement and its transaction and gives the session back; once, however often it is called. */
  close(): Promise<void>;
  /** Calls `listener`, with why, once it is closed before its reader closed it (SessionShares: to free a session); at once if it was. */
  onEvicted?(listener: (why: string) => void): void;
};

/** One page of a held read; `more` when rows remain after those handed on (not only columns or cut values). */
export type HeldPage<R extends Rows = Rows> = { result: ResultSet<R>; more: boolean };

/** A read's first page and, when rows remain after those handed on, the rest of the read, held. */
export type HeldResult = { result: ResultSet<Rows>; rest?: HeldRead };

/** How explain runs: `analyze` executes a read in a transaction that is rolled back, within `timeoutMs`. */
export type ExplainOptions = { params: unknown[]; analyze: boolean; timeoutMs: number; signal: AbortSignal };

/** A plan; after `analyze`, what the run measured (null where the engine does not report it). */
export type Explanation = ResultSet & { actual?: { execution_ms: number | null; rows: number | null } };

export type TableKind = 'table' | 'view';

export type TableSummary = { schema: string; name: string; type: TableKind };

export type ColumnDescription = {
  name: string;
  type: string;
  nullable: boolean;
  default: string | null;
  primary_key: boolean;
};

export type IndexDescription = { name: string; columns: string[]; unique: boolean };

export type ForeignKeyDescription = {
  columns: string[];
  references_schema: string;
  references_table: string;
  references_columns: string[];
  on_update: string;
  on_delete: string;
};

export type TableDescription = TableSummary & {
  columns: ColumnDescription[];
  primary_key: string[];
  indexes: IndexDescription[];
  foreign_keys: ForeignKeyDescription[];
};

export type RowCount = { count: number; exact: boolean };

export interface Database {
  readonly engine: Engine;
  /** Statements the connection runs at once (its read pool); each token may use half (SessionShares). */
  readonly sessions: number;
  /**
   * A cheap fingerprint of the schema, polled to notice changes made outside Sluice: it differs after
   * a table, view or column is created, changed or dropped. Each engine asks its own catalog.
   */
  schemaVersion(signal: AbortSignal): Promise<string>;
  /** The database (file or catalog) names this connection can reach. */
  listDatabases(signal: AbortSignal): Promise<string[]>;
  listSchemas(signal: AbortSignal): Promise<string[]>;
  defaultSchema(): string;
  listTables(schema: string | undefined, signal: AbortSignal): Promise<TableSummary[]>;
  describeTable(schema: string, table: string, signal: AbortSignal): Promise<TableDescription | undefined>;
  tableDdl(schema: string, table: string, signal: AbortSignal): Promise<string | undefined>;
  countRows(schema: string, table: string, exact: boolean, signal: AbortSignal): Promise<RowCount>;
  /**
   * Exact row counts of `tables` in `schema`, in order, for at most `budgetMs` in all: a table not
   * counted in time is null. Only an engine that can stop a count mid-table has it (SQLite).
   */
  countRowsWithin?(schema: string, tables: string[], budgetMs: number, signal: AbortSignal): Promise<Array<number | null>>;
  explain(sql: string, options: ExplainOptions): Promise<Explanation>;
  /**
   * Refuses (`invalid_argument`, the engine's message) a statement the engine cannot parse or prepare;
   * runs nothing. Checked before a write asks for consent, so nobody is asked to approve a typo.
   */
  check(sql: string, signal: AbortSignal): Promise<void>;
  /** Runs one statement the caller has classified as a read; the engine refuses it if it writes. */
  read(sql: string, options: ReadOptions): Promise<ResultSet<Rows>>;
  /**
   * Runs one read as `read` does, within the same limits and the same read-only guarantees, but hands
   * its rows to `onPage` a page at a time (`EXPORTS.pageRows` rows or `EXPORTS.pageBytes`) and keeps
   * none: the memory it takes does not grow with the result. A failing `onPage` ends the read (its
   * error may come back as the driver's).
   */
  readPages(sql: string, options: ReadOptions, onPage: PageReader): Promise<PagedRead>;
  /**
   * Tries a write once, before anyone consents to it, on a write session in a transaction that is always
   * rolled back (`rehearsal.js`): each statement within `plan.budgetMs`, enforced in the database, and
   * waiting at most `plan.lockWaitMs` for another session's lock. Nothing it does is kept.
   */
  rehearse(plan: RehearsalPlan, signal: AbortSignal): Promise<Rehearsed>;
  /**
   * `read`, except that a result cut by `maxRows`, its byte budget or its reader (`options.handOn`: the
   * token budget) keeps its statement open (`rest`), so that its next rows come from the same snapshot,
   * not from running it again, starting with the first row not handed on. Absent on an engine that
   * cannot hold a read: its cut answers have no next page.
   */
  holdRead?(sql: string, options: HoldOptions): Promise<HeldResult>;
  /** Runs one statement that writes, once the user has consented to exactly this statement. */
  write(sql: string, options: ReadOptions): Promise<ResultSet<Rows>>;
  /** `write`, keeping the rows it changes so that it can be taken back (keptWrites.ts). */
  keepWrite?(plan: KeepPlan): Promise<KeptWrite>;
  /**
   * Why this database cannot keep a write of `verb` although it has `keepWrite` (MySQL: an INSERT, which
   * returns no rows), asked before consent; undefined when it can. Absent: it keeps every verb.
   */
  whyNotKept?(verb: KeptVerb, signal: AbortSignal): Promise<string | undefined>;
  /** Takes a kept write back, unless a row changed since (keptWrites.ts). */
  restoreRows?(plan: RestorePlan): Promise<Restored>;
  browse(request: BrowseRequest, options: ReadOptions): Promise<ResultSet<Rows>>;
  close(): Promise<void>;
}

/** How each engine is named to people and models. */
export const ENGINE_NAMES: Record<Engine, string> = SHARED_ENGINE_NAMES;
