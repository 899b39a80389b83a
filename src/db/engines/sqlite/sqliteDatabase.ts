import { basename } from 'node:path';
import { type BrowseRequest, browseSql } from '../../../sql/browseSql.js';
import { type CatalogRow, namedRows } from '../../catalog/catalogRead.js';
import { groupForeignKeys, groupIndexes } from '../../catalog/catalogRows.js';
import {
  type Column,
  type Database,
  type ExplainOptions,
  type Explanation,
  type HeldPage,
  type HeldResult,
  type HoldOptions,
  JsonRows,
  type PagedRead,
  type PageReader,
  type ReadOptions,
  type ResultSet,
  type RowCount,
  type Rows,
  type TableDescription,
  type TableKind,
  type TableSummary,
  valuesOf,
} from '../../database.js';
import { DriverFailure } from '../../driverFailure.js';
import { handedOn, HeldPages } from '../../results/heldPages.js';
import { jsonRowsFrom } from '../../results/jsonRowSpans.js';
import type { StatementOptions } from '../../serverDatabase.js';
import { CATALOG_BUDGET } from '../../results/resultBudget.js';
import { journalModeQuery } from './journalModeQuery.js';
import { type HeldProcess, type SqliteFile, SqliteProcessPool } from './processPool.js';
import { COUNTING } from './queryProcessMessages.js';
import { sqlitePoolSettings } from './poolSettings.js';
import type { RehearsalPlan, Rehearsed } from '../../rehearsal.js';
import type { KeepPlan, KeptWrite, Restored, RestorePlan } from '../../keptWrites.js';
import { keepStepsPlan, restoreStepsPlan } from '../../keptPlans.js';
import { EXACT_DIALECTS } from '../../../sql/exactDialects.js';
import { DATABASES, EXPORTS, RESULTS } from '../../../core/contract.js';
import { type AppClock, systemClock } from '../../../core/clock.js';
import { SQL_DIALECTS } from '../../../sql/dialects.js';
import type { ExactDialect } from '../../../sql/keptRowsSql.js';

const dialect = SQL_DIALECTS.sqlite;
const { quoteIdent } = dialect;
const exactDialect = EXACT_DIALECTS.sqlite as ExactDialect;

/** The application's shared query pool, or (absent) a pool of this connection's own, on `clock`. */
export type SqlitePoolChoice = { pool: SqliteProcessPool } | { clock?: AppClock };

export class SqliteDatabase implements Database {
  readonly engine = 'sqlite' as const;
  /** The pool's processes: a token may run statements on half of them (SessionShares). */
  readonly sessions: number;
  readonly #file: SqliteFile;
  /** A pool of its own (a probe, a test), closed with the connection. */
  readonly #ownPool: SqliteProcessPool | undefined;
  readonly #fileName: string;

  constructor(path: string, choice: SqlitePoolChoice = {}) {
    const pool = 'pool' in choice ? choice.pool : new SqliteProcessPool(sqlitePoolSettings(), choice.clock ?? systemClock);
    this.#ownPool = 'pool' in choice ? undefined : pool;
    this.sessions = pool.size;
    this.#file = pool.file(path);
    this.#fileName = basename(path);
  }

  /** A catalog query's rows, by their columns' names. */
  async #rows(sql: string, params: unknown[], signal: AbortSignal): Promise<CatalogRow[]> {
    return namedRows(await this.#file.run({ mode: 'read', sql, params, ...CATALOG_BUDGET }, signal, DATABASES.introspectionTimeoutMs));
  }

  async schemaVersion(signal: AbortSignal): Promise<string> {
    return String((await this.#rows('SELECT schema_version FROM pragma_schema_version', [], signal))[0]?.schema_version);
  }

  defaultSchema(): string {
    return 'main';
  }

  async listDatabases(): Promise<string[]> {
    return [this.#fileName];
  }

  async listSchemas(signal: AbortSignal): Promise<string[]> {
    const rows = await this.#rows(
      "SELECT name FROM pragma_database_list WHERE name <> 'temp' ORDER BY seq",
      [],
      signal,
    );
    return rows.map((row) => String(row.name));
  }

  /** Whether `schema` is one of the connection's attached databases (`main`, `temp`, …). */
  async #hasSchema(schema: string, signal: AbortSignal): Promise<boolean> {
    return (await this.listSchemas(signal)).includes(schema);
  }

  async listTables(schema: string | undefined, signal: AbortSignal): Promise<TableSummary[]> {
    if (schema !== undefined && !(await this.#hasSchema(schema, signal))) throw new DriverFailure('not_found', `no schema "${schema}"`);
    const schemas = schema === undefined ? await this.listSchemas(signal) : [schema];
    const tables: TableSummary[] = [];
    for (const s of schemas) {
      const rows = await this.#rows(
        `SELECT name, type FROM ${quoteIdent(s)}.sqlite_schema
         WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`,
        [],
        signal,
      );
      for (const { name, type } of rows) tables.push({ schema: s, name: String(name), type: type as TableKind });
    }
    return tables;
  }

  async describeTable(
    schema: string,
    table: string,
    signal: AbortSignal,
  ): Promise<TableDescription | undefined> {
    if (!(await this.#hasSchema(schema, signal))) return undefined;
    const found = await this.#rows(
      `SELECT name, type FROM ${quoteIdent(schema)}.sqlite_schema WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE`,
      [table],
      signal,
    );
    const [relation] = found;
    if (relation === undefined) return undefined;
    const { name, type } = relation;
    const columns = await this.#rows(
      'SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_xinfo(?, ?) WHERE hidden = 0 ORDER BY cid',
      [name, schema],
      signal,
    );
    const indexRows = await this.#rows(
      `SELECT il.name AS index_name, il."unique" AS is_unique, ii.name AS column_name FROM pragma_index_list(?, ?) AS il
       JOIN pragma_index_info(il.name, ?) AS ii ORDER BY il.seq, ii.seqno`,
      [name, schema, schema],
      signal,
    );
    const fkRows = await this.#rows(
      `SELECT id AS key_name, ? AS referenced_schema, "table" AS referenced_table, "from" AS column_name, "to" AS referenced_column,
              on_update, on_delete FROM pragma_foreign_key_list(?, ?) ORDER BY id, seq`,
      [schema, name, schema],
      signal,
    );

    const pkColumns = columns
      .filter((c) => Number(c.pk) > 0)
      .sort((a, b) => Number(a.pk) - Number(b.pk))
      .map((c) => String(c.name));

    return {
      schema,
      name: String(name),
      type: type as TableKind,
      columns: columns.map((c) => ({
        name: String(c.name),
        type: String(c.type),
        nullable: c.notnull === 0 && Number(c.pk) === 0,
        default: c.dflt_value === null ? null : String(c.dflt_value),
        primary_key: Number(c.pk) > 0,
      })),
      primary_key: pkColumns,
      indexes: groupIndexes(indexRows),
      foreign_keys: groupForeignKeys(fkRows),
    };
  }

  async tableDdl(schema: string, table: string, signal: AbortSignal): Promise<string | undefined> {
    if (!(await this.#hasSchema(schema, signal))) return undefined;
    const rows = await this.#rows(
      `SELECT sql FROM ${quoteIdent(schema)}.sqlite_schema WHERE tbl_name = ? COLLATE NOCASE AND sql IS NOT NULL
       ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'view' THEN 0 WHEN 'index' THEN 1 ELSE 2 END, name`,
      [table],
      signal,
    );
    if (rows.length === 0) return undefined;
    return `${rows.map((row) => String(row.sql)).join(';\n\n')};`;
  }

  async countRows(schema: string, table: string, exact: boolean, signal: AbortSignal): Promise<RowCount> {
    if (!exact) {
      const stat = await this.#rows(
        `SELECT stat FROM ${quoteIdent(schema)}.sqlite_schema AS m JOIN ${quoteIdent(schema)}.sqlite_stat1 AS s
         ON s.tbl = m.name WHERE m.name = ? COLLATE NOCASE LIMIT 1`,
        [table],
        signal,
      ).catch(() => []);
      const estimate = Number.parseInt(String(stat[0]?.stat ?? ''), 10);
      if (Number.isFinite(estimate)) return { count: estimate, exact: false };
    }
    const rows = await this.#rows(
      `SELECT count(*) AS row_count FROM ${quoteIdent(schema)}.${quoteIdent(table)}`,
      [],
      signal,
    );
    return { count: Number(rows[0]?.row_count ?? 0), exact: true };
  }

  /** Counted in one query process, which stops the count running when `budgetMs` has passed (`COUNTING`). */
  async countRowsWithin(schema: string, tables: string[], budgetMs: number, signal: AbortSignal): Promise<Array<number | null>> {
    const counts = tables.map((table) => `SELECT count(*) FROM ${quoteIdent(schema)}.${quoteIdent(table)} WHERE ${COUNTING}()`);
    const request = { mode: 'count' as const, sql: '', params: [], counts, budgetMs, ...CATALOG_BUDGET };
    const result = await this.#file.run(request, signal, DATABASES.introspectionTimeoutMs);
    return valuesOf(result.rows).map(([count]) => (count === null ? null : Number(count)));
  }

  /** EXPLAIN QUERY PLAN; SQLite has no EXPLAIN ANALYZE, so `analyze` is unsupported. */
  async explain(sql: string, options: ExplainOptions): Promise<Explanation> {
    if (options.analyze) throw new DriverFailure('unsupported', 'SQLite has no EXPLAIN ANALYZE; time the statement with execute_query');
    const request = { mode: 'read' as const, sql: `EXPLAIN QUERY PLAN ${sql}`, params: options.params, ...CATALOG_BUDGET, maxRows: 10_000 };
    const result = await this.#file.run(request, options.signal, options.timeoutMs);
    return { ...result, rows: valuesOf(result.rows) };
  }

  async check(sql: string, signal: AbortSignal): Promise<void> {
    await this.#file.run({ mode: 'check', sql, params: [], ...CATALOG_BUDGET }, signal, DATABASES.introspectionTimeoutMs);
  }

  read(sql: string, options: ReadOptions): Promise<ResultSet<Rows>> {
    return this.#statement('read', sql, options);
  }

  /**
   * `read`, held open when rows were left out: the statement's iterator stays on its query process, in
   * a read transaction (so every page sees the first page's snapshot), and the process stays out of the
   * pool until the rest is closed. A database not in WAL mode is read whole, with no rest: there a held
   * read transaction would block every writer.
   */
  async holdRead(sql: string, options: HoldOptions): Promise<HeldResult> {
    const { handOn, ...limits } = options;
    const request = { mode: 'hold' as const, ...this.#request(journalModeQuery(sql), limits) };
    const { result, process } = await this.#file.hold(request, options.signal, options.timeoutMs);
    const { handed, more } = await handedOn({ result, more: process !== undefined }, handOn);
    if (!more) {
      await process?.release();
      return { result };
    }
    const kept = result.rows instanceof JsonRows ? await jsonRowsFrom(result.rows, handed) : result.rows.slice(handed);
    return { result, rest: new HeldSqliteRead(process, request.rowsAs, result, kept) };
  }

  /** One read as `read`, its rows handed on a page at a time by the query process, which reads on only once a page is done. */
  async readPages(sql: string, options: ReadOptions, onPage: PageReader): Promise<PagedRead> {
    let rows = 0;
    const handOn: PageReader = (page, columns) => {
      rows += page.length;
      return onPage(page, columns);
    };
    const { rows: last, rowsAffected: _, cellsCut = 0, ...result } = await this.#statement('pages', sql, options, handOn);
    const lastPage = valuesOf(last);
    if (lastPage.length > 0) await handOn(lastPage, result.columns);
    return { ...result, rows, cellsCut };
  }

  write(sql: string, options: ReadOptions): Promise<ResultSet<Rows>> {
    return this.#statement('write', sql, options);
  }

  /** The write tried in the query process (`rehearse`), which ends past the budget: the transaction goes with it. */
  async rehearse(plan: RehearsalPlan, signal: AbortSignal): Promise<Rehearsed> {
    const request = { mode: 'rehearse' as const, sql: plan.statement.sql, params: [], ...CATALOG_BUDGET, plan };
    try {
      const result = await this.#file.run(request, signal, plan.budgetMs);
      return valuesOf(result.rows)[0]?.[0] as Rehearsed;
    } catch (error) {
      if (!signal.aborted && error instanceof DriverFailure && error.kind === 'statement_timeout') return { ran: false, stopped: 'time' };
      throw error;
    }
  }

  /** The write run in the query process with its rows kept (`keep`), in one transaction that the process's end rolls back. */
  async keepWrite(plan: KeepPlan): Promise<KeptWrite> {
    const answer = plan.answer ?? { maxRows: RESULTS.defaultRows };
    const keep = keepStepsPlan(plan, 'sqlite', exactDialect);
    const request = { mode: 'keep' as const, ...this.#request(plan.sql, { ...answer, params: plan.params, rowsAs: 'values' }), keep };
    const result = await this.#file.run(request, plan.signal, plan.timeoutMs);
    return valuesOf(result.rows)[0]?.[0] as KeptWrite;
  }

  /** The kept write taken back in the query process (`restore`); SQLite binds each value as it was stored, so no column type is needed. */
  async restoreRows(plan: RestorePlan): Promise<Restored> {
    const restore = restoreStepsPlan(plan, plan.rows.columns.map((name) => ({ name, type: '' })), exactDialect);
    const request = { mode: 'restore' as const, sql: '', params: [], ...CATALOG_BUDGET, restore };
    const result = await this.#file.run(request, plan.signal, plan.timeoutMs);
    return valuesOf(result.rows)[0]?.[0] as Restored;
  }

  #statement(mode: 'read' | 'pages' | 'write', sql: string, options: ReadOptions, onPage?: PageReader): Promise<ResultSet<Rows>> {
    const request = {
      mode,
      ...this.#request(mode === 'write' ? sql : journalModeQuery(sql), options),
      ...(mode === 'pages' ? { pageRows: EXPORTS.pageRows, pageBytes: EXPORTS.pageBytes } : {}),
    };
    return this.#file.run(request, options.signal, options.timeoutMs, onPage);
  }

  #request(sql: string, options: Pick<ReadOptions, 'params' | 'maxRows' | 'maxBytes' | 'rowsAs'>) {
    return {
      sql,
      params: options.params ?? [],
      maxRows: options.maxRows,
      maxBytes: options.maxBytes ?? RESULTS.defaultBytes,
      rowsAs: options.rowsAs ?? ('values' as const),
    };
  }

  browse(request: BrowseRequest, options: ReadOptions): Promise<ResultSet<Rows>> {
    const { sql, params } = browseSql(request, dialect);
    return this.read(sql, { ...options, params });
  }

  async close(): Promise<void> {
    this.#file.close();
    await this.#ownPool?.close();
  }
}

/**
 * The rest of a cut read: its statement and read transaction, held on a query process out of the pool,
 * and the rows a page read but did not hand on (`kept`), which come first. A read the process read
 * whole (no process) whose answer the token cut left rows out of is only its kept rows.
 */
class HeldSqliteRead extends HeldPages {
  /** The process holding the statement, until a page reads it to its end (the process then goes back to the pool). */
  #process: HeldProcess | undefined;
  readonly #columns: Column[];
  /** How the read ended where no process holds the rest of it: its last page says so. */
  #end: Pick<ResultSet, 'truncated' | 'truncatedBy'>;
  #kept: unknown[][];
  #fromKept = false;

  constructor(process: HeldProcess | undefined, rowsAs: StatementOptions['rowsAs'], first: ResultSet<Rows>, kept: unknown[][]) {
    super(rowsAs);
    this.#process = process;
    this.#columns = first.columns;
    this.#end = { truncated: first.truncated, ...(first.truncatedBy ? { truncatedBy: first.truncatedBy } : {}) };
    this.#kept = kept;
  }

  /** Kept rows first, up to `maxRows`; then each page from the process, as values whatever the first one came as. */
  protected async page(page: StatementOptions): Promise<HeldPage<unknown[][]>> {
    this.#fromKept = this.#kept.length > 0 || !this.#process;
    if (this.#fromKept) {
      const rows = this.#kept.slice(0, page.maxRows);
      const more = this.#process !== undefined || rows.length < this.#kept.length;
      const end = more ? { truncated: true, truncatedBy: 'max_rows' as const } : this.#end;
      return { result: { columns: this.#columns, rows, ...end, rowsAffected: 0 }, more };
    }
    const request = { mode: 'next' as const, sql: '', params: [], maxRows: page.maxRows, maxBytes: page.maxBytes, rowsAs: 'values' as const };
    const { result, more } = await this.#process!.next(request, page.signal, page.timeoutMs);
    if (!more) {
      // Read to its end: the process ended the statement; rows the token cut leaves out are kept here.
      this.#process = undefined;
      this.#end = { truncated: result.truncated, ...(result.truncatedBy ? { truncatedBy: result.truncatedBy } : {}) };
    }
    return { result: { ...result, rows: valuesOf(result.rows) }, more };
  }

  protected readOnAfter(handed: number, page: ResultSet): void {
    this.#kept = this.#fromKept ? this.#kept.slice(handed) : page.rows.slice(handed);
  }

  /** A page that failed took its process with it or gave it back already; else the read is ended on it. */
  protected async release(): Promise<void> {
    await this.#process?.release();
  }
}
