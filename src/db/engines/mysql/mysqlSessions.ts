import type { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import mysql from 'mysql2';
import type { ServerAddress } from '../../connections/connectionUrl.js';
import type { Column, HeldPage, HeldResult, PagedRead, PageReader, ResultSet } from '../../database.js';
import { DriverFailure, statementTimeout } from '../../driverFailure.js';
import { MYSQL_CONNECTION_LOST, mysqlFailureKind } from '../../failureKinds.js';
import { jsonValue } from '../../results/jsonText.js';
import { type HeldStatementOptions, type ServerSessions, type StatementOptions } from '../../serverDatabase.js';
import { CATALOG_BUDGET, RowBudget } from '../../results/resultBudget.js';
import { RowPages } from '../../results/rowPages.js';
import { TurnPacing } from '../../results/turnPacing.js';
import { cancellable, wireValues } from '../../results/serverValues.js';
import { DATABASES, EXPORTS, RESULTS, RESULT_CURSORS } from '../../../core/contract.js';
import { nextTurn } from '../../../core/nextTurn.js';
import { type RehearsalPlan, type RehearsalRun, type Rehearsed, rehearseSteps } from '../../rehearsal.js';
import { handedOn, HeldPages } from '../../results/heldPages.js';
import type { AppClock } from '../../../core/clock.js';
import { mysqlSsl } from '../../reach/tlsSettings.js';
import { type Handover, SessionOwners, sessionOwner } from '../../connections/sessionOwner.js';
import type { ExactValue, KeepPlan, KeptVerb, KeptWrite, Restored, RestorePlan } from '../../keptWrites.js';
import { exactBytes, type Keep, type KeptSession, keepSteps } from '../../keepSteps.js';
import { restoreSteps } from '../../restoreSteps.js';
import { keepStepsPlan, restoreStepsPlan } from '../../keptPlans.js';
import { withoutGenerated } from '../../generatedColumns.js';
import { boundExact } from '../../exactBinding.js';
import { EXACT_DIALECTS } from '../../../sql/exactDialects.js';
import type { ExactDialect } from '../../../sql/keptRowsSql.js';
import { exactCast, exactRow } from './mysqlExactValues.js';
import { insertReturns, isMariadb } from './mysqlServerVersion.js';

const exactDialect = EXACT_DIALECTS.mysql as ExactDialect;
/** A table's generated columns, as MySQL (`VIRTUAL GENERATED`, `STORED GENERATED`) and MariaDB (also `PERSISTENT` before 10.2) mark them. */
const GENERATED_COLUMNS = `SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?
  AND EXTRA IN ('VIRTUAL GENERATED', 'STORED GENERATED', 'VIRTUAL', 'PERSISTENT')`;
const EVERY_ROW: Keep = { rows: Number.MAX_SAFE_INTEGER, bytes: Number.MAX_SAFE_INTEGER, toEnd: true };
const TYPE_NAMES = new Map(Object.entries(mysql.Types).map(([name, code]) => [code as number, name.toLowerCase()]));
const ENGINE_TIMEOUTS = new Set([1969, 3024]);
const INTERRUPTED = 1317;
/** ER_LOCK_WAIT_TIMEOUT: a lock not granted within `innodb_lock_wait_timeout`. */
const LOCK_WAIT_TIMEOUT = '1205';
const PARSE_ERROR = 1064;
const UNSUPPORTED_PREPARE = 1295;

type MysqlError = Error & { code?: string; errno?: number; fatal?: boolean };
type Field = { name: string; columnType?: number; type?: number; extendedFormat?: string };
type StopReason = 'truncated' | 'timedOut' | 'cancelled' | undefined;
/** How a running statement is stopped: killed on the server (its error then ends it), or abandoned at once. */
type Stop = {
  reason: StopReason;
  kill(reason: StopReason): void;
  /** Drops the session's socket where it stands and kills the statement; resolves once the KILL was answered. */
  abandon(): Promise<void>;
};

/**
 * The two pools of one MySQL or MariaDB connection. Before each read the session is made read only
 * (`tx_read_only` / `transaction_read_only`) and the read runs in `START TRANSACTION READ ONLY`: a
 * statement that commits implicitly (DDL) ends that transaction, and only the session default still
 * stops it. Writes, once consented, use the other pool. The engine's statement limit is set before each
 * statement (`max_statement_time` on MariaDB, `max_execution_time` on MySQL); a cancelled or over-long
 * statement is stopped with `KILL QUERY` from a connection of its own, and its session is discarded. A
 * read past its row cap or byte budget is abandoned: its socket is dropped at once, so no further row
 * is read, and the statement is killed. A session handed to another token is first reset
 * (COM_RESET_CONNECTION: user variables, last insert id, temporary tables, prepared statements, locks,
 * session variables); what Sluice sets on a session is set again before each statement anyway.
 */
export class MysqlSessions implements ServerSessions {
  readonly #config: mysql.ConnectionOptions;
  readonly #reads: mysql.Pool;
  readonly #writes: mysql.Pool;
  readonly #secrets: string[];
  /** The server's VERSION(), asked once. */
  #version: Promise<string> | undefined;

  readonly #clock: AppClock;
  readonly #owners: Handover<mysql.PoolConnection>;
  /** Reads held open between pages (`holdRead`), each on a session out of the read pool. */
  readonly #held = new Set<HeldMysqlRead>();

  /** `owners` decides when a session is reset: the benchmark's baseline passes one that never does. */
  constructor(address: ServerAddress, clock: AppClock, owners: Handover<mysql.PoolConnection> = new SessionOwners()) {
    this.#clock = clock;
    this.#owners = owners;
    const { engine: _engine, tls, ...credentials } = address;
    const ssl = mysqlSsl(tls);
    this.#config = {
      ...credentials,
      ...(ssl ? { ssl } : {}),
      connectTimeout: DATABASES.connectTimeoutMs,
      supportBigNumbers: true,
      dateStrings: true,
      multipleStatements: false,
      // The server may never read a file from this machine (LOAD DATA LOCAL INFILE).
      flags: ['-LOCAL_FILES'],
      charset: 'utf8mb4',
      // JSON values come as text and are parsed in #collect, unless too long or too deep (db/results/jsonText.js).
      jsonStrings: true,
    };
    this.#secrets = address.password ? [address.password] : [];
    this.#reads = mysql.createPool({ ...this.#config, connectionLimit: DATABASES.readSessions, maxIdle: DATABASES.readSessions, idleTimeout: 30_000 });
    this.#writes = mysql.createPool({ ...this.#config, connectionLimit: 2, maxIdle: 2, idleTimeout: 30_000 });
  }

  /**
   * Prepares the statement on a write session (the binary protocol's prepare runs nothing) and closes
   * it: MariaDB refuses even to prepare a write on a read session, whose `tx_read_only` is set. A
   * statement the server cannot prepare at all (`ER_UNSUPPORTED_PS`) passes: it is checked when it runs.
   */
  async check(sql: string, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const connection = await this.#connection(this.#writes);
    try {
      await new Promise<void>((resolve, reject) =>
        connection.prepare(sql, (error, statement) => {
          if (!error) {
            statement.close();
            resolve();
          } else if (error.errno === UNSUPPORTED_PREPARE) resolve();
          else reject(error.errno === PARSE_ERROR ? new DriverFailure('invalid_argument', `the statement is not valid: ${error.message}`, this.#secrets) : this.#failure(error));
        }),
      );
    } finally {
      connection.release();
    }
  }

  read(sql: string, options: StatementOptions): Promise<ResultSet> {
    return this.#session(this.#reads, options, async (connection, stop) => {
      await run(connection, await this.#sessionSettings(connection, true, options.timeoutMs));
      await run(connection, 'START TRANSACTION READ ONLY');
      const result = await this.#collect(connection, sql, options, stop, true);
      if (!stop.reason) await run(connection, 'ROLLBACK');
      return result;
    });
  }

  /**
   * `read`, held open when rows were left out: the statement streams inside `START TRANSACTION WITH
   * CONSISTENT SNAPSHOT, READ ONLY` with no server time limit (each page has Sluice's own deadline), its
   * socket paused between pages so further rows wait on the server, which waits up to
   * `net_write_timeout` (set past a held read's idle time). The session stays out of the pool.
   */
  async holdRead(sql: string, options: HeldStatementOptions): Promise<HeldResult> {
    let rest: HeldMysqlRead | undefined;
    const result = await this.#session(
      this.#reads,
      options,
      async (connection, stop) => {
        await run(connection, await this.#sessionSettings(connection, true, 0));
        await run(connection, `SET SESSION net_write_timeout = ${Math.ceil(RESULT_CURSORS.idleMs / 1000) + 60}`);
        await run(connection, 'START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
        const rows = new StreamedRows(connection, sql, options.params);
        const { handOn, ...limits } = options;
        const page = await rows.page(limits);
        const { handed, more } = await handedOn(page, handOn);
        if (more) {
          rows.keep(page.result.rows.slice(handed));
          rest = new HeldMysqlRead(connection, rows, options.rowsAs, {
            guard: (pageOptions, work) => this.#guard(connection, pageOptions, work),
            abandon: () => stop.abandon(),
            closed: () => this.#held.delete(rest as HeldMysqlRead),
          });
          this.#held.add(rest);
        } else if (rows.ended) await run(connection, 'ROLLBACK');
        else await stop.abandon();
        return page.result;
      },
      () => rest !== undefined,
    );
    return rest ? { result, rest } : { result };
  }

  /** Runs a held read's page within `options`' deadline (app clock) and signal: either kills its statement. */
  async #guard<T>(connection: mysql.PoolConnection, options: Pick<StatementOptions, 'timeoutMs' | 'signal'>, work: () => Promise<T>): Promise<T> {
    let timedOut = false;
    const timer = this.#clock.setTimeout(() => {
      timedOut = true;
      void this.#killQuery(connection.threadId).catch(() => {});
    }, options.timeoutMs);
    try {
      return await cancellable(options.signal, work, () => this.#killQuery(connection.threadId));
    } catch (error) {
      if (options.signal.aborted) throw error;
      if (timedOut) throw statementTimeout();
      throw this.#failure(error as MysqlError);
    } finally {
      this.#clock.clearTimeout(timer);
    }
  }

  /** One read as `read`, its rows handed on a page at a time (`#pages`). */
  readPages(sql: string, options: StatementOptions, onPage: PageReader): Promise<PagedRead> {
    return this.#session(this.#reads, options, async (connection, stop) => {
      await run(connection, await this.#sessionSettings(connection, true, options.timeoutMs));
      await run(connection, 'START TRANSACTION READ ONLY');
      const result = await this.#pages(connection, sql, options, stop, onPage);
      if (!stop.reason) await run(connection, 'ROLLBACK');
      return result;
    });
  }

  write(sql: string, options: StatementOptions): Promise<ResultSet> {
    return this.#session(this.#writes, options, async (connection, stop) => {
      await run(connection, await this.#sessionSettings(connection, false, options.timeoutMs));
      await run(connection, 'START TRANSACTION');
      const result = await this.#collect(connection, sql, options, stop, false);
      await run(connection, 'COMMIT');
      return result;
    });
  }

  /**
   * A write tried once (rehearsal.js) on a write session, in a transaction always rolled back. The budget
   * is the statement time limit (MariaDB's `max_statement_time` stops any statement; MySQL's
   * `max_execution_time` only a SELECT, so there the session's own deadline KILLs a write past it). The
   * lock wait is `innodb_lock_wait_timeout`, whole seconds and 1 at least; set back to the server's
   * default before the session goes back to the pool.
   */
  async rehearse(plan: RehearsalPlan, signal: AbortSignal): Promise<Rehearsed> {
    const options: StatementOptions = { params: [], maxRows: plan.shown, maxBytes: RESULTS.defaultBytes, timeoutMs: plan.budgetMs, signal };
    try {
      return await this.#session(this.#writes, options, async (connection, stop) => {
        await run(connection, await this.#sessionSettings(connection, false, plan.budgetMs));
        await run(connection, `SET SESSION innodb_lock_wait_timeout = ${DATABASES.rehearsalLockWaitSecondsMysql}`);
        await run(connection, 'START TRANSACTION');
        const step: RehearsalRun = async (sql, params, maxRows) => {
          const set = await this.#collect(connection, sql, { ...options, params, maxRows }, stop, false);
          return { columns: set.columns.map((c) => c.name), rows: set.rows, rowsAffected: set.rowsAffected };
        };
        const rehearsed = await rehearseSteps(plan, step);
        await run(connection, 'ROLLBACK');
        await run(connection, 'SET SESSION innodb_lock_wait_timeout = DEFAULT');
        return rehearsed;
      });
    } catch (error) {
      if (signal.aborted || !(error instanceof DriverFailure)) throw error;
      if (error.kind === 'statement_timeout') return { ran: false, stopped: 'time' };
      if (error.engineCode === LOCK_WAIT_TIMEOUT) return { ran: false, stopped: 'lock' };
      throw error;
    }
  }

  /** Asked before consent: an INSERT is kept only where the server can return the rows it adds (MariaDB 10.5 and later). */
  async whyNotKept(verb: KeptVerb, signal: AbortSignal): Promise<string | undefined> {
    if (verb !== 'INSERT') return undefined;
    const options: StatementOptions = { params: [], maxRows: 1, maxBytes: RESULTS.defaultBytes, timeoutMs: DATABASES.introspectionTimeoutMs, signal };
    const version = await this.#session(this.#reads, options, (connection) => this.#serverVersion(connection));
    return insertReturns(version) ? undefined : notReturned(version);
  }

  /**
   * An approved write with the rows it changes kept (keepSteps.js), in one transaction on a write session
   * with the write's time limit, committed whether or not they could be kept. An INSERT's rows are kept
   * only where it can return them (MariaDB 10.5 and later); elsewhere it runs as `write` does, not kept.
   */
  keepWrite(plan: KeepPlan): Promise<KeptWrite> {
    const options: StatementOptions = { maxBytes: RESULTS.defaultBytes, ...(plan.answer ?? { maxRows: RESULTS.defaultRows }), params: plan.params, timeoutMs: plan.timeoutMs, signal: plan.signal };
    return this.#session(this.#writes, options, async (connection, stop) => {
      await run(connection, await this.#sessionSettings(connection, false, plan.timeoutMs));
      const version = await this.#serverVersion(connection);
      const write = (sql: string, params: unknown[]) => this.#collect(connection, sql, { ...options, params }, stop, false);
      await run(connection, 'START TRANSACTION');
      let kept: KeptWrite;
      if (plan.verb === 'INSERT' && !insertReturns(version)) {
        kept = { result: await write(plan.sql, plan.params), notKept: notReturned(version) };
      } else {
        const session = this.#keptSession(connection, write);
        const generated = await this.#exact(connection, GENERATED_COLUMNS, [plan.table.schema, plan.table.name], EVERY_ROW);
        const steps = keepStepsPlan(withoutGenerated(plan, new Set(generated.rows.map(([name]) => String(name)))), 'mysql', exactDialect);
        kept = (await keepSteps(steps, session)) as KeptWrite;
      }
      await run(connection, 'COMMIT');
      return kept;
    });
  }

  /**
   * A kept write taken back (restoreSteps.js) in one transaction on a write session, committed once the
   * rows are put back, rolled back when a row changed since (and not `force`).
   */
  restoreRows(plan: RestorePlan): Promise<Restored> {
    const steps = restoreStepsPlan(plan, plan.rows.columns.map((name) => ({ name, type: '' })), exactDialect);
    const options: StatementOptions = { ...CATALOG_BUDGET, params: [], timeoutMs: plan.timeoutMs, signal: plan.signal };
    return this.#session(this.#writes, options, async (connection) => {
      await run(connection, await this.#sessionSettings(connection, false, plan.timeoutMs));
      await run(connection, 'START TRANSACTION');
      const restored = await restoreSteps(steps, this.#keptSession(connection, () => Promise.reject(new Error('an undo runs no approved statement'))));
      await run(connection, restored.restored ? 'COMMIT' : 'ROLLBACK');
      return restored;
    });
  }

  /** What keepSteps.js and restoreSteps.js run through on `connection`, inside its transaction. */
  #keptSession(connection: mysql.PoolConnection, write: KeptSession['write']): KeptSession {
    return { exact: (sql, params, keep) => this.#exact(connection, sql, params, keep), write, bind: boundExact, turn: nextTurn };
  }

  /**
   * One statement of a kept write over the binary protocol, its rows in exact form (mysqlExactValues.ts)
   * kept to `keep`, read to the end (a session inside a transaction cannot be abandoned), and the rows it
   * changed (a MariaDB INSERT … RETURNING reports none of its own: its rows are it; a SELECT's rows change nothing).
   */
  #exact(connection: mysql.PoolConnection, sql: string, params: unknown[], keep: Keep): Promise<{ rows: ExactValue[][]; rowsAffected: number; over: boolean }> {
    return new Promise((resolve, reject) => {
      let fields: Field[] = [];
      const rows: ExactValue[][] = [];
      const counted = { used: 0 };
      const pacing = new TurnPacing(counted);
      let over = false;
      let changed = 0;
      let returned = 0;
      const command = connection.execute({ sql, values: params, rowsAsArray: true, typeCast: exactCast });
      command.on('fields', (received: Field[] | undefined) => {
        fields = received ?? [];
      });
      command.on('result', (row: unknown) => {
        if (!Array.isArray(row)) {
          changed += affectedRows(row);
          return;
        }
        returned += 1;
        if (over) return;
        const values = exactRow(row, fields);
        counted.used += exactBytes(values);
        over = rows.length === keep.rows || counted.used > keep.bytes;
        if (!over) rows.push(values);
        if (pacing.due()) takeTurn(connection);
      });
      settleOn(connection, command, reject, () =>
        resolve({ rows: over ? [] : rows, rowsAffected: changed || (/^SELECT /.test(sql) ? 0 : returned), over }),
      );
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.#held].map((held) => held.close()));
    await Promise.all([this.#reads.promise().end(), this.#writes.promise().end()]);
  }

  /** `keep`, once the work is done, says that the session stays out of the pool (a held read), for its holder to end. */
  async #session<T>(
    pool: mysql.Pool,
    options: StatementOptions,
    work: (connection: mysql.PoolConnection, stop: Stop) => Promise<T>,
    keep: () => boolean = () => false,
  ): Promise<T> {
    options.signal.throwIfAborted();
    const connection = await this.#connection(pool);
    const stop: Stop = {
      reason: undefined,
      kill: (reason) => {
        stop.reason ??= reason;
        void this.#killQuery(connection.threadId).catch(() => {});
      },
      abandon: () => {
        stop.reason ??= 'truncated';
        // Out of the pool and marked closing first, so the dropped socket is no error; a session left
        // mid-result could not serve another statement, and draining it would read every row.
        connection.destroy();
        (connection as unknown as { stream: Socket }).stream.destroy();
        return this.#killQuery(connection.threadId).catch(() => {});
      },
    };
    const timer = this.#clock.setTimeout(() => stop.kill('timedOut'), options.timeoutMs + DATABASES.deadlineGraceMs);
    let discard = false;
    try {
      return await cancellable(options.signal, () => work(connection, stop), () => {
        stop.reason ??= 'cancelled';
        return this.#killQuery(connection.threadId);
      });
    } catch (error) {
      discard = true;
      if (options.signal.aborted) throw error;
      if (stop.reason === 'timedOut' && (error as MysqlError).errno === INTERRUPTED) throw statementTimeout();
      throw this.#failure(error as MysqlError);
    } finally {
      this.#clock.clearTimeout(timer);
      // A session a KILL was aimed at, or that failed mid-transaction, is closed: the server rolls it back.
      if (discard || stop.reason) connection.destroy();
      else if (!keep()) connection.release();
    }
  }

  /**
   * A session of `pool` for the statement starting now, reset first if another owner used it last. One
   * that fails its reset is closed and another taken: a server without COM_RESET_CONNECTION (MariaDB
   * before 10.2.4) then gets new sessions, which carry nothing.
   */
  async #connection(pool: mysql.Pool): Promise<mysql.PoolConnection> {
    const owner = sessionOwner();
    for (;;) {
      const connection = await new Promise<mysql.PoolConnection>((resolve, reject) =>
        pool.getConnection((error, pooled) => (error ? reject(this.#connectFailure(error)) : resolve(pooled))),
      );
      if (!this.#owners.handOver(connection, owner)) return connection;
      try {
        await new Promise<void>((resolve, reject) => connection.reset((error) => (error ? reject(error) : resolve())));
        return connection;
      } catch (error) {
        connection.destroy();
        if ((error as MysqlError).fatal) throw this.#failure(error as MysqlError);
      }
    }
  }

  /**
   * Streams the statement's rows, keeping at most `maxRows` within the byte budget. A read stops reading
   * at row `maxRows + 1` or the first row past the budget and abandons the statement; a write reads on,
   * keeping nothing more, to its end and its count of affected rows.
   */
  #collect(connection: mysql.PoolConnection, sql: string, options: StatementOptions, stop: Stop, stopEarly: boolean): Promise<ResultSet> {
    return new Promise((resolve, reject) => {
      let columns: Column[] = [];
      let jsonColumns: number[] = [];
      const rows: unknown[][] = [];
      const budget = new RowBudget(options.maxBytes, { cellBytes: options.cellBytes, answer: options.rowsAs === 'json' });
      const pacing = new TurnPacing(budget);
      let rowsAffected = 0;
      let returned = 0;
      let truncatedBy: 'max_rows' | 'max_bytes' | undefined;
      const query = { sql, rowsAsArray: true, values: options.params };
      const command = options.params.length > 0 ? connection.execute(query) : connection.query(query);
      // A statement without a result set reports undefined fields.
      command.on('fields', (received: Field[] | undefined) => {
        columns = budget.takeColumns((received ?? []).map(column), received?.length ?? 0);
        jsonColumns = (received ?? []).flatMap((field, i) => (i < columns.length && isJson(field) ? [i] : []));
      });
      command.on('result', (row: unknown) => {
        if (!Array.isArray(row)) {
          rowsAffected += affectedRows(row);
          return;
        }
        returned += 1;
        if (truncatedBy) return;
        const values = rows.length < options.maxRows ? wireValues(row) : undefined;
        if (values) for (const i of jsonColumns) if (typeof values[i] === 'string') values[i] = jsonValue(values[i] as string);
        if (values && budget.take(values)) {
          rows.push(values);
          if (pacing.due()) takeTurn(connection);
        } else {
          truncatedBy = values ? 'max_bytes' : 'max_rows';
          if (stopEarly) {
            settle();
            void stop.abandon().then(finish);
          }
        }
      });
      const settle = settleOn(connection, command, reject, () => finish());
      // A write whose rows come back (MariaDB's INSERT or DELETE … RETURNING) reports no count of its own: its rows are it.
      const finish = () =>
        resolve({ columns, rows, ...budget.outcome(truncatedBy), rowsAffected: stopEarly ? rowsAffected : rowsAffected || returned });
    });
  }

  /**
   * Streams the statement's rows a page at a time: while a full page is handed to `onPage` the
   * session's socket is paused, so further rows wait on the server rather than here, and it resumes
   * once the page is done. Past `maxRows` or the budget, or when `onPage` fails, the last page is
   * settled and the statement abandoned, as a read past its cap is.
   */
  #pages(connection: mysql.PoolConnection, sql: string, options: StatementOptions, stop: Stop, onPage: PageReader): Promise<PagedRead> {
    return new Promise((resolve, reject) => {
      let columns: Column[] = [];
      const pages = new RowPages({ ...options, pageRows: EXPORTS.pageRows, pageBytes: EXPORTS.pageBytes });
      let handed = Promise.resolve();
      let ended = false;
      const handOn = () => {
        const page = pages.next();
        if (page.length === 0) return;
        const paused = !ended;
        if (paused) connection.pause();
        handed = handed.then(() => onPage(page, columns)).then(() => {
          if (paused) connection.resume();
        });
        handed.catch(() => end(true));
      };
      /** The result ends here: once the pages are handed on, the statement is abandoned (`stopped`) or done. */
      const end = (stopped: boolean) => {
        if (ended) return;
        ended = true;
        settle();
        handOn();
        handed.then(
          () => (stopped ? stop.abandon() : undefined),
          (error: unknown) => stop.abandon().then(() => Promise.reject(error)),
        ).then(() => resolve({ columns, ...pages.summary() }), reject);
      };
      const query = { sql, rowsAsArray: true, values: options.params };
      const command = options.params.length > 0 ? connection.execute(query) : connection.query(query);
      command.on('fields', (received: Field[] | undefined) => {
        columns = (received ?? []).map(column);
      });
      command.on('result', (row: unknown) => {
        if (ended || !Array.isArray(row)) return;
        if (!pages.take(wireValues(row))) end(true);
        else if (pages.full) handOn();
      });
      const settle = failOnLoss(connection, reject);
      command.on('error', (error: MysqlError) => {
        // After `end`, an error is the abandoned statement's.
        if (ended) return;
        ended = true;
        settle();
        reject(error);
      });
      command.on('end', () => end(false));
    });
  }

  /**
   * Set again before every statement, so nothing a session ran before (even a `SET SESSION` that got
   * past every other layer) carries over: its read-only default and the statement's time limit.
   */
  async #sessionSettings(connection: mysql.PoolConnection, readOnly: boolean, timeoutMs: number): Promise<string> {
    return isMariadb(await this.#serverVersion(connection))
      ? `SET SESSION tx_read_only = ${Number(readOnly)}, SESSION max_statement_time = ${(timeoutMs / 1000).toFixed(3)}`
      : `SET SESSION transaction_read_only = ${Number(readOnly)}, SESSION max_execution_time = ${Math.ceil(timeoutMs)}`;
  }

  /**
   * Asked on the session that needs the answer: asking the pool for another session deadlocked when
   * every session of the pool was already waiting for the answer.
   */
  #serverVersion(connection: mysql.PoolConnection): Promise<string> {
    this.#version ??= new Promise<string>((resolve, reject) =>
      connection.query({ sql: 'SELECT VERSION()', rowsAsArray: true }, (error, rows) => (error ? reject(error) : resolve(String((rows as unknown[][])[0]?.[0])))),
    ).catch((error: unknown) => {
      this.#version = undefined;
      throw error;
    });
    return this.#version;
  }

  async #killQuery(threadId: number): Promise<void> {
    const admin = mysql.createConnection(this.#config).promise();
    try {
      await admin.query(`KILL QUERY ${Number(threadId)}`);
    } finally {
      await admin.end().catch(() => {});
    }
  }

  #connectFailure(error: MysqlError): DriverFailure {
    if (error.code === 'ETIMEDOUT') {
      return new DriverFailure('timeout', `the MySQL server did not answer within ${DATABASES.connectTimeoutMs / 1000} s`, this.#secrets);
    }
    return new DriverFailure('not_connected', `cannot reach the MySQL server: ${error.message}`, this.#secrets, error.errno === undefined ? undefined : String(error.errno));
  }

  #failure(error: MysqlError): Error {
    if (error instanceof DriverFailure) return error;
    if (error.errno !== undefined && ENGINE_TIMEOUTS.has(error.errno)) return statementTimeout();
    const kind = mysqlFailureKind(error.errno, error.code);
    const engineCode = error.errno === undefined ? error.code : String(error.errno);
    if (kind === 'not_connected') {
      return new DriverFailure('not_connected', `the connection to the MySQL server was lost: ${error.message}`, this.#secrets, engineCode);
    }
    return new DriverFailure(kind, error.message, this.#secrets, engineCode);
  }
}

const notReturned = (version: string) => `${isMariadb(version) ? 'MariaDB before 10.5' : 'MySQL'} cannot return the rows an INSERT adds`;

/** A JSON column: MySQL's JSON type, or MariaDB's JSON (a LONGTEXT) as its extended metadata says. */
const isJson = (field: Field) => (field.columnType ?? field.type) === mysql.Types.JSON || field.extendedFormat === 'json';
/** A result column; its origin is the field's original table and name, when it is a plain read of one. */
function column(field: Field): Column {
  const named = { name: field.name, type: TYPE_NAMES.get(field.columnType ?? field.type ?? -1) ?? '' };
  const { orgTable, orgName, db } = field as Field & { orgTable?: string; orgName?: string; db?: string };
  return orgTable && orgName ? { ...named, origin: { ...(db ? { schema: db } : {}), table: orgTable, column: orgName } } : named;
}

/**
 * Rejects through `reject` if the connection is lost mid-statement, which it reports to the connection,
 * not to the statement; returns how to stop watching.
 */
function failOnLoss(connection: mysql.PoolConnection, reject: (error: MysqlError) => void): () => void {
  const lost = (error?: MysqlError) => reject(error ?? Object.assign(new Error('the server closed the connection'), { fatal: true, code: MYSQL_CONNECTION_LOST }));
  connection.once('error', lost);
  connection.once('end', lost);
  return () => {
    connection.off('error', lost);
    connection.off('end', lost);
  };
}

/**
 * Ends a statement's promise: `end` once it is done, `reject` when it fails or the connection is lost;
 * returns how to stop watching (a statement abandoned before its end).
 */
function settleOn(connection: mysql.PoolConnection, command: EventEmitter, reject: (error: MysqlError) => void, end: () => void): () => void {
  const settle = failOnLoss(connection, reject);
  command.on('error', (error: MysqlError) => {
    settle();
    reject(error);
  });
  command.on('end', () => {
    settle();
    end();
  });
  return settle;
}

/** The packets read so far wait, paused, while the loop takes a turn. */
function takeTurn(connection: mysql.PoolConnection): void {
  connection.pause();
  void nextTurn().then(() => connection.resume());
}

/** The rows an OK packet says a statement changed. */
const affectedRows = (packet: unknown) => Number((packet as { affectedRows?: number }).affectedRows ?? 0);

function run(connection: mysql.PoolConnection, sql: string): Promise<void> {
  return new Promise((resolve, reject) => connection.query(sql, (error) => (error ? reject(error) : resolve())));
}

/**
 * A statement's rows as they stream, queued and taken a page at a time: the socket is paused while the
 * queue is full or no page is being read, and resumed when a page needs more. A row a page left out
 * stays first in the queue for the next page.
 */
class StreamedRows {
  readonly #connection: mysql.PoolConnection;
  readonly #queue: unknown[][] = [];
  /** Rows a page read and converted but did not hand on: the next page starts with them. */
  #kept: unknown[][] = [];
  #fields: Field[] = [];
  #error: MysqlError | undefined;
  #wake: (() => void) | undefined;
  ended = false;

  constructor(connection: mysql.PoolConnection, sql: string, params: unknown[]) {
    this.#connection = connection;
    const query = { sql, rowsAsArray: true, values: params };
    const command = params.length > 0 ? connection.execute(query) : connection.query(query);
    command.on('fields', (received: Field[] | undefined) => {
      this.#fields = received ?? [];
    });
    command.on('result', (row: unknown) => {
      if (!Array.isArray(row)) return;
      this.#queue.push(row);
      if (this.#queue.length >= RESULT_CURSORS.mysqlQueuedRows) connection.pause();
      this.#wake?.();
    });
    const stopWatching = failOnLoss(connection, (error) => this.#fail(error));
    command.on('error', (error: MysqlError) => {
      stopWatching();
      this.#fail(error);
    });
    command.on('end', () => {
      stopWatching();
      this.ended = true;
      this.#wake?.();
    });
  }

  #fail(error: MysqlError): void {
    this.#error ??= error;
    this.#wake?.();
  }

  /** Starts the next page with `rows`, read and converted by the last one but not handed on (before any row it read past). */
  keep(rows: unknown[][]): void {
    this.#kept = rows.concat(this.#kept);
  }

  /** The next rows, up to `maxRows` and the byte budget, and whether rows were left out of them. */
  async page(options: Pick<StatementOptions, 'maxRows' | 'maxBytes' | 'cellBytes' | 'rowsAs'>): Promise<HeldPage<unknown[][]>> {
    const budget = new RowBudget(options.maxBytes, { cellBytes: options.cellBytes, answer: options.rowsAs === 'json' });
    const pacing = new TurnPacing(budget);
    const rows: unknown[][] = [];
    let truncatedBy: 'max_rows' | 'max_bytes' | undefined;
    let columns: Column[] | undefined;
    let jsonColumns: number[] = [];
    const convert = (raw: unknown[]) => {
      const values = wireValues(raw);
      for (const i of jsonColumns) if (typeof values[i] === 'string') values[i] = jsonValue(values[i] as string);
      return values;
    };
    for (;;) {
      const kept = this.#kept.length > 0;
      const raw = kept ? this.#kept[0] : await this.#peek();
      if (!raw) break;
      if (!columns) {
        columns = budget.takeColumns(this.#fields.map(column), this.#fields.length);
        const width = columns.length;
        jsonColumns = this.#fields.flatMap((field, i) => (i < width && isJson(field) ? [i] : []));
      }
      const values = rows.length < options.maxRows ? (kept ? raw : convert(raw)) : undefined;
      if (!values) truncatedBy = 'max_rows';
      else if (budget.take(values)) rows.push(values);
      else truncatedBy = 'max_bytes';
      if (truncatedBy) {
        // A converted row the budget left out is not converted again on the next page.
        if (values && !kept) {
          this.#queue.shift();
          this.#kept.unshift(values);
        }
        break;
      }
      if (kept) this.#kept.shift();
      else this.#queue.shift();
      // Queued rows are converted a budget's slice a turn (db/results/turnPacing.ts).
      if (pacing.due()) await nextTurn();
    }
    // Further rows wait on the server until the next page; a statement at its end leaves the session to talk.
    if (this.ended) this.#connection.resume();
    else this.#connection.pause();
    columns ??= budget.takeColumns(this.#fields.map(column), this.#fields.length);
    return { result: { columns, rows, ...budget.outcome(truncatedBy), rowsAffected: 0 }, more: truncatedBy !== undefined && rows.length > 0 };
  }

  /** The first queued row, reading on (the socket resumed) while none is queued and the statement runs. */
  async #peek(): Promise<unknown[] | undefined> {
    while (this.#queue.length === 0 && !this.ended && !this.#error) {
      const woken = new Promise<void>((resolve) => (this.#wake = resolve));
      this.#connection.resume();
      await woken;
    }
    if (this.#queue.length === 0 && this.#error) throw this.#error;
    return this.#queue[0];
  }
}

/** What a held read asks of the sessions that made it. */
type HeldSession = {
  guard<T>(options: Pick<StatementOptions, 'timeoutMs' | 'signal'>, work: () => Promise<T>): Promise<T>;
  /** Drops the session's socket and kills its statement. */
  abandon(): Promise<void>;
  closed(): void;
};

/** The rest of a cut read: its session, transaction and paused statement, held. */
class HeldMysqlRead extends HeldPages {
  readonly #connection: mysql.PoolConnection;
  readonly #rows: StreamedRows;
  readonly #session: HeldSession;

  constructor(connection: mysql.PoolConnection, rows: StreamedRows, rowsAs: StatementOptions['rowsAs'], session: HeldSession) {
    super(rowsAs);
    this.#connection = connection;
    this.#rows = rows;
    this.#session = session;
  }

  protected page(page: StatementOptions): Promise<HeldPage<unknown[][]>> {
    return this.#session.guard(page, () => this.#rows.page(page));
  }

  protected readOnAfter(handed: number, page: ResultSet): void {
    this.#rows.keep(page.rows.slice(handed));
  }

  /** A statement read to its end is rolled back and its session goes back to the pool; one still streaming (or failed) is abandoned. */
  protected async release(broken: Error | undefined): Promise<void> {
    this.#session.closed();
    if (broken || !this.#rows.ended) {
      await this.#session.abandon().catch(() => {});
      this.#connection.destroy();
      return;
    }
    try {
      this.#connection.resume();
      await run(this.#connection, 'ROLLBACK');
      this.#connection.release();
    } catch {
      this.#connection.destroy();
    }
  }
}
