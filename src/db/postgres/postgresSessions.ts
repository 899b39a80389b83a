import { randomInt } from 'node:crypto';
import type { Socket } from 'node:net';
import pg from 'pg';
import type { ServerAddress } from '../connections/connectionUrl.js';
import type { Column, ResultSet } from '../database.js';
import { DriverFailure, statementTimeout } from '../driverFailure.js';
import { type ServerSessions, type StatementOptions } from '../serverDatabase.js';
import { cancellable, int64, wireValues } from '../results/serverValues.js';
import { tokenize } from '../../sql/tokens.js';
import { RowBudget } from '../results/resultBudget.js';
import { assertParses } from './postgresParser.js';
import { type Guard, GuardedSocket, guardInPlace } from './rowGuard.js';
import { postgresSsl } from '../reach/tlsSettings.js';
import { DATABASES } from '../../core/contract.js';
import { type Handover, SessionOwners, sessionOwner } from '../connections/sessionOwner.js';

/** Dates and times stay as PostgreSQL prints them (no time-zone shifts); 64-bit integers become numbers when they fit. */
const RAW_TEXT_TYPES = new Set([1082, 1083, 1114, 1184, 1186, 1266]);
const INT8 = 20;
const TYPE_NAMES = new Map(Object.entries(pg.types.builtins).map(([name, oid]) => [oid, name.toLowerCase()]));
const CURSOR_VERBS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE']);
const ROW_COUNTING_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);
/** Rows per FETCH: the first batch is small, later ones grow fourfold up to the largest. */
const FIRST_BATCH = 100;
const LARGEST_BATCH = 2_000;

const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (RAW_TEXT_TYPES.has(oid)) return (text: string) => text;
    if (oid === INT8) return int64;
    return format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text');
  },
} as unknown as pg.CustomTypesConfig;

type PgError = Error & { code?: string };

const ignore = () => {};

/** A statement over the extended protocol (one statement only, values bound); `queryMode` is not in pg's types. */
const extended = (text: string, values: unknown[]) =>
  ({ text, values, rowMode: 'array', queryMode: 'extended' }) as pg.QueryArrayConfig;

/**
 * The two pools of one PostgreSQL connection. Reads use sessions whose default transaction is read only
 * and run inside `BEGIN READ ONLY`; writes, once consented, use the other pool. Every statement goes over
 * the extended protocol, which refuses more than one statement; `statement_timeout` is set for each; a
 * cancelled statement is stopped with `pg_cancel_backend` from a connection of its own. A session
 * handed to another token is reset first (`resetSession`).
 */
export class PostgresSessions implements ServerSessions {
  readonly #config: pg.PoolConfig;
  readonly #reads: pg.Pool;
  readonly #writes: pg.Pool;
  readonly #secrets: string[];
  readonly #owners: Handover<pg.PoolClient>;

  /** `owners` decides when a session is reset: the benchmark's baseline passes one that never does. */
  constructor(address: ServerAddress, owners: Handover<pg.PoolClient> = new SessionOwners()) {
    this.#owners = owners;
    const { engine: _engine, tls, ...credentials } = address;
    const ssl = postgresSsl(tls);
    this.#config = {
      ...credentials,
      ssl,
      application_name: 'sluice',
      connectionTimeoutMillis: DATABASES.connectTimeoutMs,
      idleTimeoutMillis: 30_000,
      allowExitOnIdle: true,
      types: typeParsers,
      // An encrypted session is guarded on its TLS socket once connected (guardTls): below it, the
      // plain socket carries the one-byte answer to SSLRequest, which is no protocol message.
      ...(ssl ? {} : { stream: () => new GuardedSocket() }),
    };
    this.#secrets = address.password ? [address.password] : [];
    this.#reads = new pg.Pool({ ...this.#config, max: DATABASES.readSessions, options: '-c default_transaction_read_only=on' });
    this.#writes = new pg.Pool({ ...this.#config, max: 2 });
    if (ssl) for (const pool of [this.#reads, this.#writes]) pool.on('connect', guardTls);
    // An idle session the server dropped: the pool discards it and opens another on next use.
    this.#reads.on('error', ignore);
    this.#writes.on('error', ignore);
  }

  check(sql: string): Promise<void> {
    return assertParses(sql);
  }

  /**
   * One read. A cursor fetches the rows in growing batches until `maxRows` + 1 or the byte budget is
   * reached, so a huge result is never pulled whole and the server computes little more than is shown;
   * the session's guard drops rows past the budget or the count before the driver holds them. Each
   * FETCH is a statement with its own `statement_timeout`: a read whose batches together pass its
   * timeout is ended before the next one. The ROLLBACK closes the cursor.
   */
  read(sql: string, options: StatementOptions): Promise<ResultSet> {
    return this.#session(this.#reads, options, async (client) => {
      await client.query('BEGIN READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${Math.ceil(options.timeoutMs)}`);
      const verb = tokenize(sql, 'postgres')[0]?.text ?? '';
      const rows = new BudgetedRows(options);
      if (CURSOR_VERBS.has(verb)) {
        const started = performance.now();
        await client.query(extended(`DECLARE sluice_rows NO SCROLL CURSOR FOR ${sql}`, options.params));
        for (let batch = FIRST_BATCH; !rows.done; batch = Math.min(batch * 4, LARGEST_BATCH)) {
          if (batch > FIRST_BATCH && performance.now() - started >= options.timeoutMs) throw statementTimeout();
          const want = Math.min(batch, rows.rowsLeft);
          const result = await guarded(client, rows, () =>
            client.query({ text: `FETCH FORWARD ${want} FROM sluice_rows`, rowMode: 'array' }),
          );
          rows.fields = result.fields;
          if (result.rowCount !== null && result.rowCount < want) break;
        }
      } else {
        rows.fields = (await guarded(client, rows, () => client.query(extended(sql, options.params)))).fields;
      }
      const columns = await this.#columns(client, rows.fields);
      await client.query('ROLLBACK');
      return rows.resultSet(columns, 0);
    });
  }

  /** One consented statement, committed. */
  write(sql: string, options: StatementOptions): Promise<ResultSet> {
    return this.#session(this.#writes, options, async (client) => {
      await client.query('BEGIN');
      await client.query(`SET LOCAL statement_timeout = ${Math.ceil(options.timeoutMs)}`);
      const rows = new BudgetedRows(options);
      const result = await guarded(client, rows, () => client.query(extended(sql, options.params)));
      const columns = await this.#columns(client, result.fields ?? []);
      await client.query('COMMIT');
      const affected = ROW_COUNTING_COMMANDS.has(result.command) ? (result.rowCount ?? 0) : 0;
      return rows.resultSet(columns, affected);
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.#reads.end(), this.#writes.end()]);
  }

  async #session(pool: pg.Pool, options: StatementOptions, work: (client: pg.PoolClient) => Promise<ResultSet>) {
    options.signal.throwIfAborted();
    const owner = sessionOwner();
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw this.#connectFailure(error as PgError);
    }
    const pid = (client as unknown as { processID: number }).processID;
    // A session cut mid-statement fails its query (handled below) and also emits 'error', which the pool
    // listens to only while the session is idle: without this the process would crash.
    client.on('error', ignore);
    let broken: Error | undefined;
    try {
      const reset = this.#owners.handOver(client, owner);
      return await cancellable(
        options.signal,
        async () => {
          if (reset) await resetSession(client);
          return work(client);
        },
        () => this.#cancel(pid),
      );
    } catch (error) {
      broken = error as Error;
      throw options.signal.aborted ? error : this.#failure(error as PgError);
    } finally {
      // A session that failed mid-transaction is not reused: closing it rolls back whatever was left.
      client.off('error', ignore);
      client.release(broken ?? false);
    }
  }

  async #cancel(pid: number): Promise<void> {
    const admin = new pg.Client({ ...this.#config });
    admin.on('error', ignore);
    await admin.connect();
    try {
      await admin.query('SELECT pg_cancel_backend($1)', [pid]);
    } finally {
      await admin.end();
    }
  }

  async #columns(client: pg.PoolClient, fields: pg.FieldDef[]): Promise<Column[]> {
    const unknown = [...new Set(fields.map((f) => f.dataTypeID).filter((oid) => !TYPE_NAMES.has(oid)))];
    if (unknown.length > 0) {
      const named = await client.query<[number, string]>({
        text: 'SELECT oid::int, format_type(oid, NULL) FROM pg_type WHERE oid = ANY($1)',
        values: [unknown],
        rowMode: 'array',
      });
      for (const [oid, name] of named.rows) TYPE_NAMES.set(oid, name);
    }
    return fields.map((f) => ({ name: f.name, type: TYPE_NAMES.get(f.dataTypeID) ?? '' }));
  }

  #connectFailure(error: PgError): DriverFailure {
    if (/timeout/i.test(error.message)) {
      return new DriverFailure('timeout', `the PostgreSQL server did not answer within ${DATABASES.connectTimeoutMs / 1000} s`, this.#secrets);
    }
    return new DriverFailure('not_connected', `cannot reach the PostgreSQL server: ${error.message}`, this.#secrets, error.code);
  }

  #failure(error: PgError): Error {
    if (error instanceof DriverFailure) return error;
    const { code = '' } = error;
    if (code === '57014' && /statement timeout/.test(error.message)) return statementTimeout();
    if (code === '25006') return new DriverFailure('not_read_only', error.message, this.#secrets, code);
    // Lost sessions (no SQLSTATE), server shutdown (57P0x) and connection exceptions (08xxx).
    if (code === '' || code.startsWith('57P') || code.startsWith('08')) {
      return new DriverFailure('not_connected', `the connection to the PostgreSQL server was lost: ${error.message}`, this.#secrets);
    }
    return new DriverFailure('query_failed', error.message, this.#secrets, code || undefined);
  }
}

/**
 * Everything a session carries (settings, prepared statements, temporary tables, sequences' last
 * values, advisory locks, `LISTEN`s) back to how it started; the read pool's start-up
 * `default_transaction_read_only` is a reset value and stays. `DISCARD ALL` keeps the random seed, so a
 * fresh one follows. Run between transactions: the previous statement committed or rolled back.
 */
async function resetSession(client: pg.PoolClient): Promise<void> {
  await client.query('DISCARD ALL');
  await client.query({ text: 'SELECT setseed($1)', values: [randomInt(2 ** 47) / 2 ** 47] });
}

/** Rows kept against `maxRows` and the byte budget, batch by batch. */
class BudgetedRows {
  readonly #options: StatementOptions;
  readonly #budget: RowBudget;
  readonly #rows: unknown[][] = [];
  #truncatedBy: 'max_rows' | 'max_bytes' | undefined;
  fields: pg.FieldDef[] = [];

  constructor(options: StatementOptions) {
    this.#options = options;
    this.#budget = new RowBudget(options.maxBytes, options.cellBytes);
  }

  /** Rows still worth reading: up to `maxRows`, and one more to know that there were more. */
  get rowsLeft(): number {
    return this.#options.maxRows + 1 - this.#rows.length;
  }

  get done(): boolean {
    return this.#truncatedBy !== undefined;
  }

  /** What the guard lets through for the next batch: twice the budget left (wire text is rarely longer than JSON). */
  get allowance(): number {
    return 2 * (this.#budget.maxBytes - this.#budget.used) + 1_024;
  }

  get empty(): boolean {
    return this.#budget.rows === 0;
  }

  add(received: unknown[][], dropped: number): void {
    for (const row of received) {
      if (this.done) return;
      if (this.#rows.length === this.#options.maxRows) this.#truncatedBy = 'max_rows';
      else {
        const values = wireValues(row);
        if (this.#budget.take(values)) this.#rows.push(values);
        else this.#truncatedBy = 'max_bytes';
      }
    }
    if (dropped > 0) this.#truncatedBy ??= 'max_bytes';
  }

  resultSet(columns: Column[], rowsAffected: number): ResultSet {
    return {
      columns,
      rows: this.#rows,
      truncated: this.#truncatedBy !== undefined,
      ...(this.#truncatedBy ? { truncatedBy: this.#truncatedBy } : {}),
      cellsCut: this.#budget.cellsCut,
      rowsAffected,
    };
  }
}

/**
 * Runs one query with the session's guard armed for what `rows` can still take, and keeps its rows:
 * a statement without a cursor (a write's RETURNING, SHOW) still runs to its end, but what it sends
 * past `maxRows` + 1 rows or the budget is dropped on the socket.
 */
async function guarded(client: pg.PoolClient, rows: BudgetedRows, query: () => Promise<pg.QueryArrayResult>) {
  const guard = guardOf(client);
  guard.arm(rows.allowance, rows.empty, rows.rowsLeft);
  try {
    const result = await query();
    rows.add(result.rows ?? [], guard.dropped);
    return result;
  } finally {
    guard.disarm();
  }
}

const tlsGuards = new WeakMap<pg.PoolClient, Guard>();

/** An encrypted session's guard sits on the TLS socket `pg` put over the GuardedSocket. */
function guardTls(client: pg.PoolClient): void {
  tlsGuards.set(client, guardInPlace((client as unknown as { connection: { stream: Socket } }).connection.stream));
}

const guardOf = (client: pg.PoolClient): Guard =>
  tlsGuards.get(client) ?? (client as unknown as { connection: { stream: GuardedSocket } }).connection.stream;
