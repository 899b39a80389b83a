import { type BrowseRequest, browseSql, type SqlDialect } from '../sql/browseSql.js';
import { CATALOG_BUDGET } from './results/resultBudget.js';
import { type CatalogRow, namedRows } from './catalog/catalogRead.js';
import { DriverFailure } from './driverFailure.js';
import {
  type Database,
  type Engine,
  ENGINE_NAMES,
  type ExplainOptions,
  type Explanation,
  type HeldResult,
  type HoldOptions,
  type PagedRead,
  type PageOptions,
  type PageReader,
  type ReadOptions,
  type ResultSet,
  type RowCount,
  type Rows,
  type TableDescription,
  type TableSummary,
} from './database.js';
import { DATABASES, RESULTS } from '../core/contract.js';
import { answerRows } from './results/answerRows.js';
import type { RehearsalPlan, Rehearsed } from './rehearsal.js';
import type { KeepPlan, KeptVerb, KeptWrite, Restored, RestorePlan } from './keptWrites.js';

export type StatementOptions = {
  params: unknown[];
  maxRows: number;
  /** The rows' JSON size at most (the answer's, with `rowsAs: 'json'`), and the most one cell may take (see results/resultBudget.js). */
  maxBytes: number;
  cellBytes?: number;
  rowsAs?: 'values' | 'json';
  timeoutMs: number;
  signal: AbortSignal;
};

/** `StatementOptions` of a held read's first page, and how many of its rows leave (`Database.holdRead`). */
export type HeldStatementOptions = StatementOptions & Pick<PageOptions, 'handOn'>;

/** A server's read and write sessions, as its driver keeps them. */
export type ServerSessions = {
  check(sql: string, signal: AbortSignal): Promise<void>;
  read(sql: string, options: StatementOptions): Promise<ResultSet>;
  readPages(sql: string, options: StatementOptions, onPage: PageReader): Promise<PagedRead>;
  /** `Database.holdRead`; absent where the driver cannot hold a read open between calls. */
  holdRead?(sql: string, options: HeldStatementOptions): Promise<HeldResult>;
  write(sql: string, options: StatementOptions): Promise<ResultSet>;
  rehearse(plan: RehearsalPlan, signal: AbortSignal): Promise<Rehearsed>;
  /** `Database.keepWrite` and `restoreRows`. */
  keepWrite(plan: KeepPlan): Promise<KeptWrite>;
  restoreRows(plan: RestorePlan): Promise<Restored>;
  /** `Database.whyNotKept`: absent where the engine keeps every verb it keeps writes of. */
  whyNotKept?(verb: KeptVerb, signal: AbortSignal): Promise<string | undefined>;
  close(): Promise<void>;
};

const INTROSPECTION = { ...CATALOG_BUDGET, timeoutMs: DATABASES.introspectionTimeoutMs };

const statementOptions = (options: ReadOptions): StatementOptions => ({
  ...options,
  params: options.params ?? [],
  maxBytes: options.maxBytes ?? RESULTS.defaultBytes,
});

/** A statement's result as the caller asked for its rows: serialised for an answer with `rowsAs: 'json'`. */
async function forAnswer(result: ResultSet<Rows>, options: ReadOptions): Promise<ResultSet<Rows>> {
  return options.rowsAs === 'json' ? answerRows(result) : result;
}

/**
 * What PostgreSQL, MySQL and DuckDB share: statements go to the driver's sessions, and the catalog
 * queries of each engine run as reads on them. Subclasses supply the catalog queries. The driver is loaded and
 * its pools made on first use, so an application with no server connection in use never loads it.
 */
export abstract class ServerDatabase implements Database {
  abstract readonly engine: Exclude<Engine, 'sqlite'>;
  readonly sessions = DATABASES.readSessions;
  readonly #openSessions: () => Promise<ServerSessions>;
  #sessions: Promise<ServerSessions> | undefined;
  readonly #dialect: SqlDialect;

  protected constructor(openSessions: () => Promise<ServerSessions>, dialect: SqlDialect) {
    this.#openSessions = openSessions;
    this.#dialect = dialect;
  }

  #use(): Promise<ServerSessions> {
    // Sessions that could not be made (a TLS file that cannot be read) are tried again on next use.
    this.#sessions ??= this.#openSessions().catch((error: unknown) => {
      this.#sessions = undefined;
      throw error;
    });
    return this.#sessions;
  }

  protected abstract readonly schemaVersionSql: string;
  abstract listDatabases(signal: AbortSignal): Promise<string[]>;
  abstract listSchemas(signal: AbortSignal): Promise<string[]>;
  abstract defaultSchema(): string;
  abstract listTables(schema: string | undefined, signal: AbortSignal): Promise<TableSummary[]>;
  abstract describeTable(schema: string, table: string, signal: AbortSignal): Promise<TableDescription | undefined>;
  abstract tableDdl(schema: string, table: string, signal: AbortSignal): Promise<string | undefined>;
  abstract countRows(schema: string, table: string, exact: boolean, signal: AbortSignal): Promise<RowCount>;

  /** A catalog query's rows, by their columns' names. */
  protected async rows(sql: string, params: unknown[], signal: AbortSignal): Promise<CatalogRow[]> {
    return namedRows(await (await this.#use()).read(sql, { ...INTROSPECTION, params, signal }));
  }

  /** The fingerprint `schemaVersionSql` gives as its column `fingerprint`. */
  async schemaVersion(signal: AbortSignal): Promise<string> {
    return String((await this.rows(this.schemaVersionSql, [], signal))[0]?.fingerprint);
  }

  /** `EXPLAIN`; engines that can analyse a statement override it for `analyze`. */
  async explain(sql: string, options: ExplainOptions): Promise<Explanation> {
    if (options.analyze) throw new DriverFailure('unsupported', `explain_query cannot analyze on ${ENGINE_NAMES[this.engine]}`);
    return this.plan(`EXPLAIN ${sql}`, options);
  }

  /** Runs an EXPLAIN statement as a read: a read-only transaction, rolled back, within the caller's timeout. */
  protected async plan(sql: string, options: ExplainOptions): Promise<ResultSet> {
    return (await this.#use()).read(sql, { ...CATALOG_BUDGET, params: options.params, timeoutMs: options.timeoutMs, signal: options.signal });
  }

  async check(sql: string, signal: AbortSignal): Promise<void> {
    await (await this.#use()).check(sql, signal);
  }

  async read(sql: string, options: ReadOptions): Promise<ResultSet<Rows>> {
    return forAnswer(await (await this.#use()).read(sql, statementOptions(options)), options);
  }

  async readPages(sql: string, options: ReadOptions, onPage: PageReader): Promise<PagedRead> {
    return (await this.#use()).readPages(sql, statementOptions(options), onPage);
  }

  /** `Database.holdRead` for an engine whose sessions hold reads (PostgreSQL); else the read whole, with no rest. */
  protected async holdOn(sql: string, options: HoldOptions): Promise<HeldResult> {
    const sessions = await this.#use();
    if (!sessions.holdRead) return { result: await forAnswer(await sessions.read(sql, statementOptions(options)), options) };
    const held = await sessions.holdRead(sql, statementOptions(options));
    return { ...held, result: await forAnswer(held.result, options) };
  }

  async write(sql: string, options: ReadOptions): Promise<ResultSet<Rows>> {
    return forAnswer(await (await this.#use()).write(sql, statementOptions(options)), options);
  }

  async rehearse(plan: RehearsalPlan, signal: AbortSignal): Promise<Rehearsed> {
    return (await this.#use()).rehearse(plan, signal);
  }

  /** The write with its rows kept, in one transaction on a write session (the engine's sessions). */
  async keepWrite(plan: KeepPlan): Promise<KeptWrite> {
    return (await this.#use()).keepWrite(plan);
  }

  /** `Database.whyNotKept`: asked of the engine's sessions where they can say (MySQL's INSERT). */
  async whyNotKept(verb: KeptVerb, signal: AbortSignal): Promise<string | undefined> {
    const sessions = await this.#use();
    return sessions.whyNotKept?.(verb, signal);
  }

  async restoreRows(plan: RestorePlan): Promise<Restored> {
    return (await this.#use()).restoreRows(plan);
  }

  browse(request: BrowseRequest, options: ReadOptions): Promise<ResultSet<Rows>> {
    const { sql, params } = browseSql(request, this.#dialect);
    return this.read(sql, { ...options, params });
  }

  async close(): Promise<void> {
    await (await this.#sessions)?.close();
  }
}
