import { resolve, sep } from 'node:path';
import {
  type DuckDBConnection,
  type DuckDBDataChunk,
  DuckDBInstance,
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
import type { ServerSessions, StatementOptions } from '../../serverDatabase.js';
import { cancellable, toWireValue } from '../../results/serverValues.js';
import type { AppClock } from '../../../core/clock.js';
import { DATABASES, EXPORTS } from '../../../core/contract.js';

/** Where a DuckDB connection's database lives, and the one directory its statements may read files from. */
export type DuckdbTarget = { path: string; filesDir?: string };

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

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * The settings that fence a DuckDB instance in, locked so no statement can change them: its memory and
 * threads (`DATABASES`), no file outside `filesDir` (none at all without one), no extension installed or loaded.
 */
function fenceSql(filesDir: string | undefined): string[] {
  return [
    `SET memory_limit = '${DATABASES.duckdbMemoryLimitMb}MiB'`,
    `SET threads = ${DATABASES.duckdbThreads}`,
    ...(filesDir === undefined ? [] : [`SET allowed_directories = [${literal(resolve(filesDir) + sep)}]`]),
    'SET enable_external_access = false',
    'SET autoinstall_known_extensions = false',
    'SET autoload_known_extensions = false',
    'SET lock_configuration = true',
  ];
}

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
  readonly #instance: DuckDBInstance;
  readonly #clock: AppClock;
  /** How to stop each running statement, and when it has ended: closing stops them all first. */
  readonly #running = new Map<() => void, Promise<unknown>>();

  private constructor(instance: DuckDBInstance, clock: AppClock) {
    this.#instance = instance;
    this.#clock = clock;
  }

  static async open(target: DuckdbTarget, clock: AppClock): Promise<DuckdbSessions> {
    let instance: DuckDBInstance;
    try {
      instance = await DuckDBInstance.create(target.path);
    } catch (error) {
      throw new DriverFailure('not_connected', `cannot open the DuckDB database: ${(error as Error).message}`);
    }
    const setup = await instance.connect();
    try {
      for (const sql of fenceSql(target.filesDir)) await setup.run(sql);
    } catch (error) {
      instance.closeSync();
      throw new DriverFailure('not_connected', `cannot restrict the DuckDB database's memory, threads and file access: ${(error as Error).message}`);
    } finally {
      setup.closeSync();
    }
    return new DuckdbSessions(instance, clock);
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

  /** Interrupts the statements still running (they fail `not_connected`), then closes the database. */
  async close(): Promise<void> {
    for (const stop of this.#running.keys()) stop();
    await Promise.allSettled(this.#running.values());
    this.#instance.closeSync();
  }

  async #statement<T>(begin: string, end: string, sql: string, options: StatementOptions, reading: Reading<T>): Promise<T> {
    options.signal.throwIfAborted();
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
  let truncatedBy: 'max_rows' | 'max_bytes' | undefined;
  while (!truncatedBy) {
    const chunk = await step(() => result.fetchChunk());
    if (!chunk || chunk.rowCount === 0) break;
    for (const row of columns.length === result.columnCount ? chunk.convertRows(toJson) : keptRows(chunk, columns.length, toJson)) {
      if (rows.length === options.maxRows) truncatedBy = 'max_rows';
      else if (budget.take(row)) rows.push(row);
      else truncatedBy = 'max_bytes';
      if (truncatedBy) break;
    }
  }
  return { columns, rows, ...budget.outcome(truncatedBy), rowsAffected: 0 };
}

/** A chunk's rows with only the first `width` columns converted: the rest are left out of the answer. */
function keptRows(chunk: DuckDBDataChunk, width: number, converter: DuckDBValueConverter<unknown>): unknown[][] {
  const columns = Array.from({ length: width }, (_, i) => chunk.convertColumnValues(i, converter));
  return Array.from({ length: chunk.rowCount }, (_, row) => columns.map((values) => values[row]));
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
  const type = /^([A-Za-z ]+) Error:/.exec(error.message)?.[1];
  return new DriverFailure(duckdbFailureKind(error.message), error.message, [], type);
}
