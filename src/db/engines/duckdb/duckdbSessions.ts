import {
  type DuckDBConnection,
  type DuckDBDataChunk,
  type DuckDBInstance,
  type DuckDBResult,
  DuckDBTypeId,
  type DuckDBValueConverter,
  type Json,
  JsonDuckDBValueConverter,
  ResultReturnType,
} from '@duckdb/node-api';
import type { Column, PagedRead, PageReader, ResultSet } from '../../database.js';
import { DriverFailure, statementTimeout } from '../../driverFailure.js';
import { duckdbFailureKind } from '../../failureKinds.js';
import { blobHex, RowBudget } from '../../results/resultBudget.js';
import { RowPages } from '../../results/rowPages.js';
import { TurnPacing } from '../../results/turnPacing.js';
import type { ServerSessions, StatementOptions } from '../../serverDatabase.js';
import { cancellable, toWireValue } from '../../results/serverValues.js';
import type { AppClock } from '../../../core/clock.js';
import { splitStatements, tokenize, UnreadableSql } from '../../../sql/tokens.js';
import { EXPORTS } from '../../../core/contract.js';
import { nextTurn } from '../../../core/nextTurn.js';
import { type DuckdbTarget, type HeldInstance, holdInstance } from './duckdbInstances.js';

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
/** What a statement does with its result. */
type Reading<T> = (result: DuckDBResult, step: Step) => Promise<T>;

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

  /** One read as `read`, its rows handed on a page at a time; the next chunk is fetched once a full page is done. */
  readPages(sql: string, options: StatementOptions, onPage: PageReader): Promise<PagedRead> {
    return this.#statement('BEGIN TRANSACTION READ ONLY', 'ROLLBACK', sql, options, (result, step) => handPages(result, options, step, onPage));
  }

  write(sql: string, options: StatementOptions): Promise<ResultSet> {
    return this.#statement('BEGIN TRANSACTION', 'COMMIT', sql, options, (result, step) => collect(result, options, step));
  }

  /** Interrupts the statements still running (they fail `not_connected`), then lets go of the database (closed once no connection uses it). */
  async close(): Promise<void> {
    for (const stop of this.#running.keys()) stop();
    await Promise.allSettled(this.#running.values());
    this.#held.release();
  }

  async #statement<T>(begin: string, end: string, sql: string, options: StatementOptions, reading: Reading<T>): Promise<T> {
    options.signal.throwIfAborted();
    refuseSeveral(sql);
    const connection = await this.#instance.connect();
    const stop: Stop = { reason: undefined };
    const close = () => {
      stop.reason ??= 'closed';
      connection.interrupt();
    };
    const running = this.#run(connection, stop, begin, end, sql, options, reading);
    this.#running.set(close, running);
    try {
      return await running;
    } finally {
      this.#running.delete(close);
    }
  }

  async #run<T>(connection: DuckDBConnection, stop: Stop, begin: string, end: string, sql: string, options: StatementOptions, reading: Reading<T>): Promise<T> {
    const timer = this.#clock.setTimeout(() => {
      stop.reason ??= 'timedOut';
      connection.interrupt();
    }, options.timeoutMs);
    // An interrupt between two statements is lost: each step checks whether the statement was stopped.
    const step: Step = async (work) => {
      const done = await work();
      if (stop.reason) throw new Error(`stopped: ${stop.reason}`);
      return done;
    };
    try {
      return await cancellable(
        options.signal,
        async () => {
          await step(() => connection.run(begin));
          const result = await step(() => connection.stream(sql, options.params as never));
          const set = await reading(result, step);
          await step(() => connection.run(end));
          return set;
        },
        async () => {
          stop.reason ??= 'cancelled';
          connection.interrupt();
        },
      );
    } catch (error) {
      if (options.signal.aborted) throw error;
      if (stop.reason === 'timedOut') throw statementTimeout();
      if (stop.reason === 'closed') throw new DriverFailure('not_connected', 'the DuckDB database was closed while the statement ran');
      throw failure(error as Error);
    } finally {
      this.#clock.clearTimeout(timer);
      // Closing the connection rolls back whatever transaction a failure left open.
      connection.closeSync();
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
  while (!truncatedBy) {
    const chunk = await step(() => result.fetchChunk());
    if (!chunk || chunk.rowCount === 0) break;
    for (const row of rowsOf(chunk, columns.length, toJson)) {
      if (rows.length === options.maxRows) truncatedBy = 'max_rows';
      else if (budget.take(row)) rows.push(row);
      else truncatedBy = 'max_bytes';
      if (truncatedBy) break;
      if (pacing.due()) await nextTurn();
    }
    // The chunk's native memory goes now, not when the garbage collector gets to it.
    chunk.reset();
  }
  return { columns, rows, ...budget.outcome(truncatedBy), rowsAffected: 0 };
}

/**
 * A chunk's rows, each converted only when it is taken, with only its first `width` columns: a chunk
 * holds up to 2,048 rows, and those past the budget are never made (converted whole, 2,048 values of
 * 400 KB added 830 MB to this process).
 */
function* rowsOf(chunk: DuckDBDataChunk, width: number, converter: DuckDBValueConverter<unknown>): Generator<unknown[]> {
  const vectors = Array.from({ length: width }, (_, i) => chunk.getColumnVector(i));
  for (let row = 0; row < chunk.rowCount; row++) yield vectors.map((vector) => converter(vector.getItem(row), vector.type, converter));
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

/** DuckDB's message starts with its error type (`Catalog Error: …`), which is what the activity log keeps. */
function failure(error: Error): Error {
  if (error instanceof DriverFailure) return error;
  // The driver puts its own words before a parser's error, which hid the type.
  const message = error.message.replace(/^Failed to extract statements: /, '');
  const type = /^([A-Za-z ]+) Error:/.exec(message)?.[1];
  return new DriverFailure(duckdbFailureKind(message), message, [], type);
}
