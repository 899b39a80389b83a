import { resolve, sep } from 'node:path';
import {
  type DuckDBConnection,
  DuckDBInstance,
  type DuckDBResult,
  DuckDBTypeId,
  type DuckDBValueConverter,
  type Json,
  JsonDuckDBValueConverter,
  ResultReturnType,
} from '@duckdb/node-api';
import type { ResultSet } from '../database.js';
import { DriverFailure, statementTimeout } from '../driverFailure.js';
import { blobHex, RowBudget } from '../results/resultBudget.js';
import type { ServerSessions, StatementOptions } from '../serverDatabase.js';
import { cancellable, toWireValue } from '../results/serverValues.js';
import type { AppClock } from '../../core/clock.js';
import { DATABASES } from '../../core/contract.js';

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

  /** Prepares the statement (binding names, running nothing) on a connection of its own. */
  async check(sql: string, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const connection = await this.#instance.connect();
    try {
      (await connection.prepare(sql)).destroySync();
    } catch (error) {
      throw new DriverFailure('invalid_argument', `the statement is not valid: ${(error as Error).message}`);
    } finally {
      connection.closeSync();
    }
  }

  read(sql: string, options: StatementOptions): Promise<ResultSet> {
    return this.#statement('BEGIN TRANSACTION READ ONLY', 'ROLLBACK', sql, options);
  }

  write(sql: string, options: StatementOptions): Promise<ResultSet> {
    return this.#statement('BEGIN TRANSACTION', 'COMMIT', sql, options);
  }

  /** Interrupts the statements still running (they fail `not_connected`), then closes the database. */
  async close(): Promise<void> {
    for (const stop of this.#running.keys()) stop();
    await Promise.allSettled(this.#running.values());
    this.#instance.closeSync();
  }

  async #statement(begin: string, end: string, sql: string, options: StatementOptions): Promise<ResultSet> {
    options.signal.throwIfAborted();
    const connection = await this.#instance.connect();
    const stop: Stop = { reason: undefined };
    const close = () => {
      stop.reason ??= 'closed';
      connection.interrupt();
    };
    const running = this.#run(connection, stop, begin, end, sql, options);
    this.#running.set(close, running);
    try {
      return await running;
    } finally {
      this.#running.delete(close);
    }
  }

  async #run(connection: DuckDBConnection, stop: Stop, begin: string, end: string, sql: string, options: StatementOptions): Promise<ResultSet> {
    const timer = this.#clock.setTimeout(() => {
      stop.reason ??= 'timedOut';
      connection.interrupt();
    }, options.timeoutMs);
    // An interrupt between two statements is lost: each step checks whether the statement was stopped.
    const step = async <T>(work: () => Promise<T>): Promise<T> => {
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
          const set = await collect(result, options, step);
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
async function collect(result: DuckDBResult, options: StatementOptions, step: <T>(work: () => Promise<T>) => Promise<T>): Promise<ResultSet> {
  const columns = result.columnNames().map((name, i) => ({ name, type: result.columnType(i).toString() }));
  if (result.returnType === ResultReturnType.CHANGED_ROWS) {
    await step(() => result.fetchChunk());
    return { columns: [], rows: [], truncated: false, cellsCut: 0, rowsAffected: Number(result.rowsChanged) };
  }
  const budget = new RowBudget(options.maxBytes, options.cellBytes);
  const toJson = jsonValues(budget.cellLimit);
  const rows: unknown[][] = [];
  let truncatedBy: 'max_rows' | 'max_bytes' | undefined;
  while (!truncatedBy) {
    const chunk = await step(() => result.fetchChunk());
    if (!chunk || chunk.rowCount === 0) break;
    for (const row of chunk.convertRows(toJson)) {
      if (rows.length === options.maxRows) truncatedBy = 'max_rows';
      else if (budget.take(row)) rows.push(row);
      else truncatedBy = 'max_bytes';
      if (truncatedBy) break;
    }
  }
  return {
    columns,
    rows,
    truncated: truncatedBy !== undefined,
    ...(truncatedBy ? { truncatedBy } : {}),
    cellsCut: budget.cellsCut,
    rowsAffected: 0,
  };
}

/** DuckDB's message starts with its error type (`Catalog Error: …`), which is what the activity log keeps. */
function failure(error: Error): Error {
  if (error instanceof DriverFailure) return error;
  const type = /^([A-Za-z ]+) Error:/.exec(error.message)?.[1];
  if (/read-only (mode|transaction)/i.test(error.message)) return new DriverFailure('not_read_only', error.message, [], type);
  return new DriverFailure('query_failed', error.message, [], type);
}
