import {
  type DuckDBConnection,
  type DuckDBDataChunk,
  type DuckDBInstance,
  type DuckDBResult,
  DuckDBTypeId,
  type DuckDBValueConverter,
  type DuckDBVector,
  type Json,
  JsonDuckDBValueConverter,
  ResultReturnType,
} from '@duckdb/node-api';
import type { Column, HeldPage, HeldResult, PagedRead, PageReader, ResultSet } from '../../database.js';
import { handedOn, HeldPages } from '../../results/heldPages.js';
import { DriverFailure, statementTimeout } from '../../driverFailure.js';
import { duckdbFailureKind } from '../../failureKinds.js';
import { blobHex, RowBudget } from '../../results/resultBudget.js';
import { RowPages } from '../../results/rowPages.js';
import { TurnPacing } from '../../results/turnPacing.js';
import type { HeldStatementOptions, ServerSessions, StatementOptions } from '../../serverDatabase.js';
import { cancellable, toWireValue } from '../../results/serverValues.js';
import type { AppClock } from '../../../core/clock.js';
import { splitStatements, tokenize, UnreadableSql } from '../../../sql/tokens.js';
import { EXPORTS, RESULTS } from '../../../core/contract.js';
import { nextTurn } from '../../../core/nextTurn.js';
import { type RehearsalPlan, type RehearsalRun, type Rehearsed, rehearseSteps } from '../../rehearsal.js';
import { type DuckdbTarget, type HeldInstance, holdInstance } from './duckdbInstances.js';
import type { KeepPlan, KeptWrite, Restored, RestorePlan } from '../../keptWrites.js';
import { keepStepsPlan, restoreStepsPlan } from '../../keptPlans.js';
import { keepSteps } from '../../keepSteps.js';
import { restoreSteps } from '../../restoreSteps.js';
import { EXACT_DIALECTS } from '../../../sql/exactDialects.js';
import type { ExactDialect, TypedColumn } from '../../../sql/keptRowsSql.js';
import { duckdbKeptSession } from './duckdbKeptSession.js';
import { duckdbGeneratedColumns } from './duckdbGeneratedColumns.js';
import { withoutGenerated } from '../../generatedColumns.js';

/**
 * JSON-safe values: 64-bit and larger integers as numbers when they fit, binary as `0x…` hex (cut to
 * `cellLimit` before it is made), the rest as DuckDB's own JSON form.
 */
const jsonValues =
  (cellLimit: number): DuckDBValueConverter<unknown> =>
  (value, type, converter) => {
    if (typeof value === 'bigint') return toWireValue(value);
    if (type.typeId === DuckDBTypeId.BLOB && value !== null) return blobHex((value as { bytes: Uint8Array }).bytes, cellLimit).text;
    return JsonDuckDBValueConverter(value, type, converter as DuckDBValueConverter<Json>);
  };

type Stop = { reason: 'timedOut' | 'cancelled' | 'closed' | undefined };
/** Runs one step of a statement, failing if the statement was stopped meanwhile. */
type Step = <T>(work: () => Promise<T>) => Promise<T>;
/** What a statement does with its result (on `connection`). */
type Reading<T> = (result: DuckDBResult, step: Step, connection: DuckDBConnection) => Promise<T>;

/**
 * One DuckDB database (a file, or `:memory:`) in this process. Every statement gets a connection of
 * its own: a read runs in `BEGIN TRANSACTION READ ONLY`, so DuckDB refuses any write in it; a write,
 * once consented, in a transaction it commits. DuckDB has no statement timeout: Sluice's deadline, on
 * the app clock, and a cancellation both interrupt the connection.
 */
export class DuckdbSessions implements ServerSessions {
  readonly #held: HeldInstance;
  readonly #instance: DuckDBInstance;
  readonly #clock: AppClock;
  /** How to stop each running statement, and when it has ended: closing stops them all first. */
  readonly #running = new Map<() => void, Promise<unknown>>();
  /** Reads held open between pages (`holdRead`), each on its connection. */
  readonly #heldReads = new Set<HeldDuckdbRead>();

  private constructor(held: HeldInstance, clock: AppClock) {
    this.#held = held;
    this.#instance = held.instance;
    this.#clock = clock;
  }

  /** Sessions on the file's instance, shared with every other connection to the same file (duckdbInstances.ts). */
  static async open(target: DuckdbTarget, clock: AppClock): Promise<DuckdbSessions> {
    return new DuckdbSessions(await holdInstance(target), clock);
  }

  /**
   * Prepares the statement (binding names, running nothing) on a connection of its own. What DuckDB
   * cannot parse is `invalid_argument`; what its catalogue or binder refuses (a missing table or column)
   * is the error the statement would give when run.
   */
  async check(sql: string, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const connection = await this.#instance.connect();
    try {
      (await connection.prepare(sql)).destroySync();
    } catch (error) {
      const { message } = error as Error;
      throw message.startsWith('Parser Error:') ? new DriverFailure('invalid_argument', `the statement is not valid: ${message}`) : failure(error as Error);
    } finally {
      connection.closeSync();
    }
  }

  read(sql: string, options: StatementOptions): Promise<ResultSet> {
    return this.#statement('BEGIN TRANSACTION READ ONLY', 'ROLLBACK', sql, options, (result, step) => collect(result, options, step));
  }

  /**
   * `read`, held open when rows remain after those handed on (`handOn`): the read-only transaction (one
   * snapshot), its connection and its streaming result stay open, and each page reads on from the first
   * row not handed on (the rows read but not handed on, converted already, are kept for it).
   */
  async holdRead(sql: string, options: HeldStatementOptions): Promise<HeldResult> {
    let rest: HeldDuckdbRead | undefined;
    const result = await this.#statement(
      'BEGIN TRANSACTION READ ONLY',
      'ROLLBACK',
      sql,
      options,
      async (streamed, step, connection) => {
        const source = new ChunkRows(streamed);
        const { handOn, ...limits } = options;
        const page = await readPage(source, limits, step);
        const { handed, more } = await handedOn(page, handOn);
        if (more) {
          source.putBack(page.result.rows.slice(handed));
          rest = new HeldDuckdbRead(connection, source, options.rowsAs, {
            guard: (pageOptions, work) => this.#guard(connection, { reason: undefined }, pageOptions, work),
            closed: () => this.#heldReads.delete(rest as HeldDuckdbRead),
          });
          this.#heldReads.add(rest);
        } else source.release();
        return page.result;
      },
      () => rest !== undefined,
    );
    return rest ? { result, rest } : { result };
  }

  /** One read as `read`, its rows handed on a page at a time; the next chunk is fetched once a full page is done. */
  readPages(sql: string, options: StatementOptions, onPage: PageReader): Promise<PagedRead> {
    return this.#statement('BEGIN TRANSACTION READ ONLY', 'ROLLBACK', sql, options, (result, step) => handPages(result, options, step, onPage));
  }

  write(sql: string, options: StatementOptions): Promise<ResultSet> {
    return this.#statement('BEGIN TRANSACTION', 'COMMIT', sql, options, (result, step) => collect(result, options, step));
  }

  /**
   * A write tried once (rehearsal.js) on a connection of its own, in a transaction always rolled back,
   * interrupted past the budget. DuckDB takes no locks to wait for: a write that meets another
   * transaction's change fails at once with a conflict, which is told as a lock.
   */
  async rehearse(plan: RehearsalPlan, signal: AbortSignal): Promise<Rehearsed> {
    try {
      return await this.#session({ timeoutMs: plan.budgetMs, signal }, async (connection, step) => {
        const run: RehearsalRun = async (sql, params, maxRows) => {
          const result = await step(() => connection.stream(sql, params as never));
          // The write's RETURNING rows are its count: every one is counted, the first `maxRows` kept.
          if (sql === plan.statement.sql && result.returnType !== ResultReturnType.CHANGED_ROWS) return returnedRows(result, maxRows, step);
          const set = await collect(result, { params, maxRows, maxBytes: RESULTS.defaultBytes, timeoutMs: plan.budgetMs, signal }, step);
          return { columns: set.columns.map((c) => c.name), rows: set.rows, rowsAffected: set.rowsAffected };
        };
        await step(() => connection.run('BEGIN TRANSACTION'));
        const rehearsed = await rehearseSteps(plan, run);
        await step(() => connection.run('ROLLBACK'));
        return rehearsed;
      });
    } catch (error) {
      if (signal.aborted || !(error instanceof DriverFailure)) throw error;
      if (error.kind === 'statement_timeout') return { ran: false, stopped: 'time' };
      if (/conflict/i.test(error.message)) return { ran: false, stopped: 'lock' };
      throw error;
    }
  }

  /**
   * The approved write with its rows kept (keepSteps.js), in one transaction on a connection of its own,
   * committed whether the rows were kept or not; a failing statement closes the connection, which rolls
   * it all back. Past `timeoutMs` the connection is interrupted, as a write's is.
   */
  async keepWrite(plan: KeepPlan): Promise<KeptWrite> {
    refuseSeveral(plan.sql);
    const answer = { maxRows: plan.answer?.maxRows ?? RESULTS.defaultRows, maxBytes: plan.answer?.maxBytes ?? RESULTS.defaultBytes };
    return this.#session(plan, async (connection, step) => {
      const run = (sql: string, params: unknown[]) => step(() => connection.stream(sql, params as never));
      const write = async (sql: string, params: unknown[]) => collect(await run(sql, params), { ...answer, params, timeoutMs: plan.timeoutMs, signal: plan.signal }, step);
      await step(() => connection.run('BEGIN TRANSACTION'));
      const stored = withoutGenerated(plan, await duckdbGeneratedColumns(connection, plan.table, step));
      const steps = keepStepsPlan(stored, 'duckdb', EXACT_DIALECTS.duckdb as ExactDialect);
      const kept = await keepSteps(steps, duckdbKeptSession(run, step, stored.table.columns, write));
      await step(() => connection.run('COMMIT'));
      return kept as KeptWrite;
    });
  }

  /**
   * A kept write taken back (restoreSteps.js) in one transaction on a connection of its own: committed once
   * restored, rolled back when rows changed since. Values are bound as text cast to each column's type now.
   */
  async restoreRows(plan: RestorePlan): Promise<Restored> {
    return this.#session(plan, async (connection, step) => {
      const run = (sql: string, params: unknown[]) => step(() => connection.stream(sql, params as never));
      await step(() => connection.run('BEGIN TRANSACTION'));
      const columns = await columnTypes(connection, plan, step);
      const steps = restoreStepsPlan(plan, columns, EXACT_DIALECTS.duckdb as ExactDialect);
      const refused = async () => {
        throw new DriverFailure('unsupported', 'an undo runs no statement of its own');
      };
      const restored = await restoreSteps(steps, duckdbKeptSession(run, step, columns, refused));
      await step(() => connection.run(restored.restored ? 'COMMIT' : 'ROLLBACK'));
      return restored;
    });
  }

  /** Interrupts the statements still running (they fail `not_connected`), then lets go of the database (closed once no connection uses it). */
  async close(): Promise<void> {
    await Promise.all([...this.#heldReads].map((held) => held.close()));
    for (const stop of this.#running.keys()) stop();
    await Promise.allSettled(this.#running.values());
    this.#held.release();
  }

  #statement<T>(begin: string, end: string, sql: string, options: StatementOptions, reading: Reading<T>, keep: () => boolean = () => false): Promise<T> {
    options.signal.throwIfAborted();
    refuseSeveral(sql);
    return this.#session(
      options,
      async (connection, step) => {
        await step(() => connection.run(begin));
        const result = await step(() => connection.stream(sql, options.params as never));
        const set = await reading(result, step, connection);
        if (!keep()) await step(() => connection.run(end));
        return set;
      },
      keep,
    );
  }

  /**
   * A connection of its own for `work`, stopped past `timeoutMs`, on cancellation or when the sessions
   * close, and closed once `work` is done unless `keep` says a held read goes on with it.
   */
  async #session<T>(
    options: { timeoutMs: number; signal: AbortSignal },
    work: (connection: DuckDBConnection, step: Step) => Promise<T>,
    keep: () => boolean = () => false,
  ): Promise<T> {
    options.signal.throwIfAborted();
    const connection = await this.#instance.connect();
    const stop: Stop = { reason: undefined };
    let kept = false;
    const running = (async () => {
      try {
        return await this.#guard(connection, stop, options, async (step) => {
          const done = await work(connection, step);
          kept = keep();
          return done;
        });
      } finally {
        // Closing the connection rolls back whatever transaction a failure left open; a held read keeps it.
        if (!kept) connection.closeSync();
      }
    })();
    const close = () => {
      stop.reason ??= 'closed';
      connection.interrupt();
    };
    this.#running.set(close, running);
    try {
      return await running;
    } finally {
      this.#running.delete(close);
    }
  }

  /**
   * Runs `work` on `connection` within `options`' deadline (app clock) and signal: either interrupts it,
   * and each step fails once the statement was stopped (an interrupt between two statements is lost).
   */
  async #guard<T>(connection: DuckDBConnection, stop: Stop, options: Pick<StatementOptions, 'timeoutMs' | 'signal'>, work: (step: Step) => Promise<T>): Promise<T> {
    const timer = this.#clock.setTimeout(() => {
      stop.reason ??= 'timedOut';
      connection.interrupt();
    }, options.timeoutMs);
    const step: Step = async (task) => {
      const done = await task();
      if (stop.reason) throw new Error(`stopped: ${stop.reason}`);
      return done;
    };
    try {
      return await cancellable(options.signal, () => work(step), async () => {
        stop.reason ??= 'cancelled';
        connection.interrupt();
      });
    } catch (error) {
      if (options.signal.aborted) throw error;
      if (stop.reason === 'timedOut') throw statementTimeout();
      if (stop.reason === 'closed') throw new DriverFailure('not_connected', 'the DuckDB database was closed while the statement ran');
      throw failure(error as Error);
    } finally {
      this.#clock.clearTimeout(timer);
    }
  }
}

/**
 * Refuses text of more than one statement as written. DuckDB's own `stream` runs every statement but
 * the last before streaming that one (a PIVOT is two for DuckDB: its temporary type, then the query), so
 * `COMMIT; CREATE TABLE …` sent as a read ended the read-only transaction and wrote.
 */
function refuseSeveral(sql: string): void {
  let statements: number;
  try {
    statements = splitStatements(tokenize(sql, 'duckdb')).length;
  } catch (error) {
    if (error instanceof UnreadableSql) throw new DriverFailure('invalid_argument', `the SQL cannot be read: ${error.message}`);
    throw error;
  }
  if (statements > 1) throw new DriverFailure('invalid_argument', 'send exactly one statement per call');
}

/** The result's rows, chunk by chunk, up to `maxRows` and the byte budget; the rest is never fetched. */
async function collect(result: DuckDBResult, options: StatementOptions, step: Step): Promise<ResultSet> {
  if (result.returnType === ResultReturnType.CHANGED_ROWS) {
    await step(() => result.fetchChunk());
    return { columns: [], rows: [], truncated: false, cellsCut: 0, rowsAffected: Number(result.rowsChanged) };
  }
  const source = new ChunkRows(result);
  const page = await readPage(source, options, step);
  source.release();
  return page.result;
}

/**
 * The next rows of `source`, up to `maxRows` and the byte budget, and whether rows were left out; a
 * row left out stays the next one of `source` (a held read's next page starts with it).
 */
async function readPage(source: ChunkRows, options: StatementOptions, step: Step): Promise<HeldPage & { result: ResultSet }> {
  const { result } = source;
  const budget = new RowBudget(options.maxBytes, { cellBytes: options.cellBytes, answer: options.rowsAs === 'json' });
  // Named one at a time: the columns left out are never named (5,000 names of 4,000 characters took 82 ms).
  const named = function* () {
    for (let i = 0; i < result.columnCount; i++) yield { name: result.columnName(i), type: result.columnType(i).toString() };
  };
  const columns = budget.takeColumns(named(), result.columnCount);
  const toJson = jsonValues(budget.cellLimit);
  const rows: unknown[][] = [];
  const pacing = new TurnPacing(budget);
  let truncatedBy: 'max_rows' | 'max_bytes' | undefined;
  for (let row = await source.peek(columns.length, toJson, step); row; row = await source.peek(columns.length, toJson, step)) {
    if (rows.length === options.maxRows) truncatedBy = 'max_rows';
    else if (budget.take(row)) rows.push(row);
    else truncatedBy = 'max_bytes';
    if (truncatedBy) break;
    source.skip();
    if (pacing.due()) await nextTurn();
  }
  return { result: { columns, rows, ...budget.outcome(truncatedBy), rowsAffected: 0 }, more: truncatedBy !== undefined && rows.length > 0 };
}

/**
 * A streaming result's rows, a chunk at a time, each converted only when it is looked at, with only its
 * first `width` columns: a chunk holds up to 2,048 rows, and those past the budget are never made
 * (converted whole, 2,048 values of 400 KB added 830 MB to this process). A chunk's native memory goes
 * as soon as its rows are past, not when the garbage collector gets to it.
 */
class ChunkRows {
  #chunk: DuckDBDataChunk | undefined;
  #vectors: DuckDBVector[] = [];
  #row = 0;
  #ended = false;
  /** Rows converted and read, not handed on (`putBack`): the next rows, before the chunk's. */
  #kept: unknown[][] = [];

  constructor(readonly result: DuckDBResult) {}

  /** The next row, not yet taken (`skip` takes it), or undefined once the result has no more. */
  async peek(width: number, converter: DuckDBValueConverter<unknown>, step: Step): Promise<unknown[] | undefined> {
    if (this.#kept.length > 0) return this.#kept[0];
    while (!this.#chunk || this.#row >= this.#chunk.rowCount) {
      this.release();
      if (this.#ended) return undefined;
      const chunk = await step(() => this.result.fetchChunk());
      if (!chunk || chunk.rowCount === 0) {
        this.#ended = true;
        return undefined;
      }
      this.#chunk = chunk;
      this.#row = 0;
    }
    const chunk = this.#chunk;
    if (this.#vectors.length !== width) this.#vectors = Array.from({ length: width }, (_, i) => chunk.getColumnVector(i));
    return this.#vectors.map((vector) => converter(vector.getItem(this.#row), vector.type, converter));
  }

  skip(): void {
    if (this.#kept.shift() === undefined) this.#row += 1;
  }

  /** `rows`, read from here and not handed on, are the next ones again. */
  putBack(rows: unknown[][]): void {
    this.#kept = rows.concat(this.#kept);
  }

  /** Lets go of the chunk being read. */
  release(): void {
    this.#chunk?.reset();
    this.#chunk = undefined;
    this.#vectors = [];
  }
}

/** What a held read asks of the sessions that made it: its pages guarded as a statement is, and word that it closed. */
type HeldSession = {
  guard<T>(options: Pick<StatementOptions, 'timeoutMs' | 'signal'>, work: (step: Step) => Promise<T>): Promise<T>;
  closed(): void;
};

/** The rest of a cut read: its connection, its read-only transaction and its streaming result, held. */
class HeldDuckdbRead extends HeldPages {
  readonly #connection: DuckDBConnection;
  readonly #source: ChunkRows;
  readonly #session: HeldSession;

  constructor(connection: DuckDBConnection, source: ChunkRows, rowsAs: StatementOptions['rowsAs'], session: HeldSession) {
    super(rowsAs);
    this.#connection = connection;
    this.#source = source;
    this.#session = session;
  }

  protected page(page: StatementOptions): Promise<HeldPage<unknown[][]>> {
    return this.#session.guard(page, (step) => readPage(this.#source, page, step));
  }

  protected readOnAfter(handed: number, page: ResultSet): void {
    this.#source.putBack(page.rows.slice(handed));
  }

  protected async release(): Promise<void> {
    this.#session.closed();
    this.#source.release();
    await this.#connection.run('ROLLBACK').catch(() => {});
    this.#connection.closeSync();
  }
}

/** A write's RETURNING rows: every one counted as a row it changed, the first `maxRows` kept. */
async function returnedRows(result: DuckDBResult, maxRows: number, step: Step) {
  const columns = Array.from({ length: result.columnCount }, (_, i) => result.columnName(i));
  const toJson = jsonValues(RESULTS.defaultBytes);
  const rows: unknown[][] = [];
  let count = 0;
  for (let chunk = await step(() => result.fetchChunk()); chunk && chunk.rowCount > 0; chunk = await step(() => result.fetchChunk())) {
    // Only the rows kept are converted.
    const vectors = Array.from({ length: columns.length }, (_, i) => chunk.getColumnVector(i));
    for (let row = 0; row < chunk.rowCount && rows.length < maxRows; row++) rows.push(vectors.map((vector) => toJson(vector.getItem(row), vector.type, toJson)));
    count += chunk.rowCount;
    chunk.reset();
  }
  return { columns, rows, rowsAffected: count };
}

/** The result's rows handed to `onPage` a page at a time, up to `maxRows` and the byte budget. */
async function handPages(result: DuckDBResult, options: StatementOptions, step: Step, onPage: PageReader): Promise<PagedRead> {
  const columns = columnsOf(result);
  const pages = new RowPages({ ...options, pageRows: EXPORTS.pageRows, pageBytes: EXPORTS.pageBytes });
  const toJson = jsonValues(pages.budget.cellLimit);
  while (!pages.done) {
    const chunk = await step(() => result.fetchChunk());
    if (!chunk || chunk.rowCount === 0) break;
    const rows = chunk.convertRows(toJson);
    // The chunk's native memory goes now, not when the garbage collector gets to it: V8 does not see it.
    chunk.reset();
    for (const row of rows) {
      if (!pages.take(row)) break;
      if (pages.full) await onPage(pages.next(), columns);
    }
  }
  const last = pages.next();
  if (last.length > 0) await onPage(last, columns);
  return { columns, ...pages.summary() };
}

const columnsOf = (result: DuckDBResult): Column[] => result.columnNames().map((name, i) => ({ name, type: result.columnType(i).toString() }));

/** The kept rows' columns with their types as the table declares them now; a column gone since fails the undo. */
async function columnTypes(connection: DuckDBConnection, plan: RestorePlan, step: Step): Promise<TypedColumn[]> {
  const sql = `SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2`;
  const found = await step(() => connection.runAndReadAll(sql, [plan.table.schema, plan.table.name]));
  const types = new Map(found.getRows().map(([name, type]) => [String(name), String(type)]));
  return plan.rows.columns.map((name) => {
    const type = types.get(name);
    if (type === undefined) throw new DriverFailure('not_found', `${plan.table.name} has no column ${name} now`);
    return { name, type };
  });
}

/** DuckDB's message starts with its error type (`Catalog Error: …`), which is what the activity log keeps. */
function failure(error: Error): Error {
  if (error instanceof DriverFailure) return error;
  // The driver puts its own words before a parser's error, which hid the type.
  const message = error.message.replace(/^Failed to extract statements: /, '');
  const type = /^([A-Za-z ]+) Error:/.exec(message)?.[1];
  return new DriverFailure(duckdbFailureKind(message), message, [], type);
}
