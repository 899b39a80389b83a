import pg from 'pg';
import { ErrorCode, ProtocolError } from '../../protocol/errors.js';
import type { ServerAddress } from '../connectionUrl.js';
import type { Column, ResultSet } from '../database.js';
import { DriverFailure } from '../driverFailure.js';
import type { ServerSessions, StatementOptions } from '../serverDatabase.js';
import { cancellable, int64, toWireValue } from '../serverValues.js';
import { tokenize } from '../sqlTokens.js';

const CONNECT_TIMEOUT_MS = 5_000;
/** Dates and times stay as PostgreSQL prints them (no time-zone shifts); 64-bit integers become numbers when they fit. */
const RAW_TEXT_TYPES = new Set([1082, 1083, 1114, 1184, 1186, 1266]);
const INT8 = 20;
const TYPE_NAMES = new Map(Object.entries(pg.types.builtins).map(([name, oid]) => [oid, name.toLowerCase()]));
const CURSOR_VERBS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE']);
const ROW_COUNTING_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

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
 * cancelled statement is stopped with `pg_cancel_backend` from a connection of its own.
 */
export class PostgresSessions implements ServerSessions {
  readonly #config: pg.PoolConfig;
  readonly #reads: pg.Pool;
  readonly #writes: pg.Pool;
  readonly #secrets: string[];

  constructor(address: ServerAddress) {
    const { engine: _engine, ...credentials } = address;
    this.#config = {
      ...credentials,
      application_name: 'sluice',
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      idleTimeoutMillis: 30_000,
      allowExitOnIdle: true,
      types: typeParsers,
    };
    this.#secrets = address.password ? [address.password] : [];
    this.#reads = new pg.Pool({ ...this.#config, max: 4, options: '-c default_transaction_read_only=on' });
    this.#writes = new pg.Pool({ ...this.#config, max: 2 });
    // An idle session the server dropped: the pool discards it and opens another on next use.
    this.#reads.on('error', ignore);
    this.#writes.on('error', ignore);
  }

  /** One read: a cursor fetches at most `maxRows + 1` rows, so a huge result is never pulled whole. */
  read(sql: string, options: StatementOptions): Promise<ResultSet> {
    return this.#session(this.#reads, options, async (client) => {
      await client.query('BEGIN READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${Math.ceil(options.timeoutMs)}`);
      const verb = tokenize(sql, 'postgres')[0]?.text ?? '';
      let result: pg.QueryArrayResult;
      if (CURSOR_VERBS.has(verb)) {
        await client.query(extended(`DECLARE sluice_rows NO SCROLL CURSOR FOR ${sql}`, options.params));
        result = await client.query({ text: `FETCH FORWARD ${options.maxRows + 1} FROM sluice_rows`, rowMode: 'array' });
      } else {
        result = await client.query(extended(sql, options.params));
      }
      const columns = await this.#columns(client, result.fields);
      await client.query('ROLLBACK');
      return resultSet(columns, result.rows, options.maxRows, 0);
    });
  }

  /** One consented statement, committed. */
  write(sql: string, options: StatementOptions): Promise<ResultSet> {
    return this.#session(this.#writes, options, async (client) => {
      await client.query('BEGIN');
      await client.query(`SET LOCAL statement_timeout = ${Math.ceil(options.timeoutMs)}`);
      const result = await client.query(extended(sql, options.params));
      const columns = await this.#columns(client, result.fields ?? []);
      await client.query('COMMIT');
      const affected = ROW_COUNTING_COMMANDS.has(result.command) ? (result.rowCount ?? 0) : 0;
      return resultSet(columns, result.rows ?? [], options.maxRows, affected);
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.#reads.end(), this.#writes.end()]);
  }

  async #session(pool: pg.Pool, options: StatementOptions, work: (client: pg.PoolClient) => Promise<ResultSet>) {
    options.signal.throwIfAborted();
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
      return await cancellable(options.signal, () => work(client), () => this.#cancel(pid));
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
      return new DriverFailure('timeout', `the PostgreSQL server did not answer within ${CONNECT_TIMEOUT_MS / 1000} s`, this.#secrets);
    }
    return new DriverFailure('not_connected', `cannot reach the PostgreSQL server: ${error.message}`, this.#secrets);
  }

  #failure(error: PgError): Error {
    if (error instanceof ProtocolError || error instanceof DriverFailure) return error;
    const { code = '' } = error;
    if (code === '57014' && /statement timeout/.test(error.message)) {
      return new ProtocolError(ErrorCode.RequestTimeout, 'The statement ran past its timeout and was stopped in the database');
    }
    if (code === '25006') return new DriverFailure('not_read_only', error.message, this.#secrets);
    // Lost sessions (no SQLSTATE), server shutdown (57P0x) and connection exceptions (08xxx).
    if (code === '' || code.startsWith('57P') || code.startsWith('08')) {
      return new DriverFailure('not_connected', `the connection to the PostgreSQL server was lost: ${error.message}`, this.#secrets);
    }
    return new DriverFailure('query_failed', error.message, this.#secrets);
  }
}

function resultSet(columns: Column[], rows: unknown[][], maxRows: number, rowsAffected: number): ResultSet {
  return {
    columns,
    rows: rows.slice(0, maxRows).map((row) => row.map(toWireValue)),
    truncated: rows.length > maxRows,
    rowsAffected,
  };
}
