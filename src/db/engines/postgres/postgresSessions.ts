import type { ColumnOrigin } from '../../connections/columnPolicy.js';
import { randomInt } from 'node:crypto';
import type { Socket } from 'node:net';
import pg from 'pg';
import type { ServerAddress } from '../../connections/connectionUrl.js';
import type { Column, HeldPage, HeldResult, PagedRead, PageReader, ResultSet } from '../../database.js';
import { handedOn, HeldPages } from '../../results/heldPages.js';
import { DriverFailure, statementTimeout } from '../../driverFailure.js';
import { postgresFailureKind } from '../../failureKinds.js';
import { type HeldStatementOptions, type ServerSessions, type StatementOptions } from '../../serverDatabase.js';
import { cancellable, int64, wireValues } from '../../results/serverValues.js';
import { tokenize } from '../../../sql/tokens.js';
import { RowBudget } from '../../results/resultBudget.js';
import { jsonValue } from '../../results/jsonText.js';
import { RowPages } from '../../results/rowPages.js';
import { TurnPacing } from '../../results/turnPacing.js';
import { assertParses, type CatalogName } from './postgresParser.js';
import { type Guard, GuardedSocket, guardInPlace } from './rowGuard.js';
import { postgresSsl } from '../../reach/tlsSettings.js';
import { DATABASES, EXPORTS, RESULTS } from '../../../core/contract.js';
import { nextTurn } from '../../../core/nextTurn.js';
import { type RehearsalPlan, type RehearsalRun, type Rehearsed, rehearseSteps } from '../../rehearsal.js';
import { type Handover, SessionOwners, sessionOwner } from '../../connections/sessionOwner.js';
import type { ExactValue, KeepPlan, KeptWrite, Restored, RestorePlan } from '../../keptWrites.js';
import { exactBytes, type Keep, type KeptSession, keepSteps } from '../../keepSteps.js';
import { restoreSteps } from '../../restoreSteps.js';
import { keepStepsPlan, restoreStepsPlan } from '../../keptPlans.js';
import { withoutGenerated } from '../../generatedColumns.js';
import { boundExact } from '../../exactBinding.js';
import { EXACT_DIALECTS } from '../../../sql/exactDialects.js';
import type { ExactDialect } from '../../../sql/keptRowsSql.js';

/** Dates and times stay as PostgreSQL prints them (no time-zone shifts); 64-bit integers become numbers when they fit. */
const RAW_TEXT_TYPES = new Set([1082, 1083, 1114, 1184, 1186, 1266]);
const INT8 = 20;
/** json, jsonb and their arrays: parsed unless too long or too deep (db/results/jsonText.js). */
const JSON_TYPES = new Set([114, 3802, 199, 3807]);
const TYPE_NAMES = new Map(Object.entries(pg.types.builtins).map(([name, oid]) => [oid, name.toLowerCase()]));
const CURSOR_VERBS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE']);
const ROW_COUNTING_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);
/** query_canceled (past `statement_timeout`, as its message says) and lock_not_available (past `lock_timeout`). */
const CANCELED = '57014';
const LOCK_NOT_AVAILABLE = '55P03';
/**
 * Rows per FETCH: the first batch is small, later ones grow fourfold up to the largest, and take about
 * BATCH_BYTES of the budget at most (at the rows' size so far), so that no batch's rows hold the event
 * loop for long while they are converted and measured.
 */
const FIRST_BATCH = 100;
const LARGEST_BATCH = 2_000;
const BATCH_BYTES = 1_048_576;

const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (RAW_TEXT_TYPES.has(oid)) return (text: string) => text;
    if (oid === INT8) return int64;
    if (JSON_TYPES.has(oid) && format !== 'binary') {
      const parse = pg.types.getTypeParser(oid, 'text') as (text: string) => unknown;
      return (text: string) => jsonValue(text, parse);
    }
    return format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text');
  },
} as unknown as pg.CustomTypesConfig;

type PgError = Error & { code?: string };

const ignore = () => {};

/** A statement over the extended protocol (one statement only, values bound); `queryMode` is not in pg's types. */
const extended = (text: string, values: unknown[]) =>
  ({ text, values, rowMode: 'array', queryMode: 'extended' }) as pg.QueryArrayConfig;

/** Whether a relation exists: by its schema, or on the session's search path (temporary tables first). */
const RELATION_EXISTS = `SELECT to_regclass(CASE WHEN $1::text IS NULL THEN quote_ident($2::text)
  ELSE quote_ident($1::text) || '.' || quote_ident($2::text) END) IS NOT NULL`;

/** Whether a procedure of that name exists: in its schema, or in one on the session's search path. */
const PROCEDURE_EXISTS = `SELECT EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE p.prokind = 'p' AND p.proname = $2::text
  AND (n.nspname = $1::text OR ($1::text IS NULL AND n.nspname = ANY (current_schemas(true)))))`;

/** Every value as PostgreSQL's text output, unparsed: the exact form a kept write reads (keptWrites.ts). */
const EXACT_TEXT = { getTypeParser: () => (text: string) => text } as unknown as pg.CustomTypesConfig;
const exactDialect = EXACT_DIALECTS.postgres as ExactDialect;
/** A table's generated columns (`attgenerated`, read through to_jsonb so that a server before 12, which has none, answers none). */
const GENERATED_COLUMNS = `SELECT a.attname FROM pg_attribute a
  WHERE a.attrelid = to_regclass(quote_ident($1::text) || '.' || quote_ident($2::text)) AND coalesce(to_jsonb(a) ->> 'attgenerated', '') <> ''`;

const shownName = ({ schema, name }: CatalogName) => (schema === null ? name : `${schema}.${name}`);

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
  /** Reads held open between pages (`holdRead`), each on a session out of the read pool. */
  readonly #held = new Set<HeldPostgresRead>();

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

  /**
   * Refuses what PostgreSQL's own parser refuses (no round trip), then what the catalogue refuses, with
   * the error the statement would give when run: a statement PREPARE takes (or the one an EXPLAIN wraps)
   * is prepared, which runs nothing, and deallocated; a table DDL changes and a procedure CALL names must
   * exist. All of it in a read-only transaction on a write session (where the token's own temporary
   * tables are, as for the write); a failure closes the session instead of giving it back.
   */
  async check(sql: string, signal: AbortSignal): Promise<void> {
    const { prepare, relations, procedure } = await assertParses(sql);
    if (prepare === undefined && relations.length === 0 && procedure === undefined) return;
    await this.#session(this.#writes, { signal }, async (client) => {
      await client.query('BEGIN READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${DATABASES.introspectionTimeoutMs}`);
      if (prepare !== undefined) {
        await client.query(extended(`PREPARE sluice_check AS ${prepare}`, []));
        await client.query('DEALLOCATE sluice_check');
      }
      for (const relation of relations) {
        const found = await client.query(extended(RELATION_EXISTS, [relation.schema, relation.name]));
        if (found.rows[0]?.[0] !== true) throw new DriverFailure('query_failed', `relation "${shownName(relation)}" does not exist`, [], '42P01');
      }
      if (procedure !== undefined) {
        const found = await client.query(extended(PROCEDURE_EXISTS, [procedure.schema, procedure.name]));
        if (found.rows[0]?.[0] !== true) throw new DriverFailure('query_failed', `procedure ${shownName(procedure)} does not exist`, [], '42883');
      }
      await client.query('ROLLBACK');
    });
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
      const rows = new BudgetedRows(options, (fields) => this.#columns(client, fields));
      if (CURSOR_VERBS.has(verb)) {
        await client.query(extended(`DECLARE sluice_rows NO SCROLL CURSOR FOR ${sql}`, options.params));
        await fetchBatches(client, rows, options.timeoutMs);
      } else {
        await guarded(client, rows, () => client.query(extended(sql, options.params)));
      }
      await client.query('ROLLBACK');
      return rows.resultSet(0);
    });
  }

  /**
   * `read`, held open when rows remain after those handed on (`handOn`): the statement is a SCROLL
   * cursor in a REPEATABLE READ, read-only transaction, so every later page sees the first page's
   * snapshot, and its session stays out of the pool until the rest is closed. Each page starts after the
   * last one's rows handed on (`MOVE ABSOLUTE`), whatever the page read past them. A statement a cursor
   * cannot hold (SHOW, EXPLAIN) is read whole, with no rest, and `handOn` is not asked.
   */
  async holdRead(sql: string, options: HeldStatementOptions): Promise<HeldResult> {
    if (!CURSOR_VERBS.has(tokenize(sql, 'postgres')[0]?.text ?? '')) return { result: await this.read(sql, options) };
    let rest: HeldPostgresRead | undefined;
    const result = await this.#session(
      this.#reads,
      options,
      async (client, pid) => {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        await client.query(`SET LOCAL statement_timeout = ${Math.ceil(options.timeoutMs)}`);
        await client.query(extended(`DECLARE sluice_rows SCROLL CURSOR FOR ${sql}`, options.params));
        const { handOn, ...limits } = options;
        const first = await this.#page(client, limits, 0);
        const { handed, more } = await handedOn(first, handOn);
        const page = first.result;
        if (more) {
          rest = new HeldPostgresRead(client, handed, options.rowsAs, {
            page: (pageOptions, position) => this.#page(client, pageOptions, position),
            cancel: () => this.#cancel(pid),
            failure: (error) => this.#failure(error),
            closed: () => this.#held.delete(rest as HeldPostgresRead),
          });
          this.#held.add(rest);
        } else {
          await client.query('ROLLBACK');
        }
        return page;
      },
      () => rest !== undefined,
    );
    return rest ? { result, rest } : { result };
  }

  /**
   * One page of the held cursor `sluice_rows`, from row `position` on, within the page's own timeout;
   * `more` when rows were left out of it (a page with none, its first row alone over the budget, ends the read).
   */
  async #page(client: pg.PoolClient, options: StatementOptions, position: number): Promise<HeldPage<unknown[][]>> {
    await client.query(`SET LOCAL statement_timeout = ${Math.ceil(options.timeoutMs)}`);
    if (position > 0) await client.query(`MOVE ABSOLUTE ${position} FROM sluice_rows`);
    const rows = new BudgetedRows(options, (fields) => this.#columns(client, fields));
    await fetchBatches(client, rows, options.timeoutMs);
    const result = rows.resultSet(0);
    return { result, more: rows.done && result.rows.length > 0 };
  }

  /**
   * One read handed on a page at a time (export_data), in `BEGIN READ ONLY` with its `statement_timeout`
   * as `read`: a cursor FETCHes about a page (fewer rows when they are wide), hands it to `onPage`, and
   * fetches the next only once that is done. The timeout covers the whole read, pages handed on included.
   * A statement a cursor cannot hold (SHOW, EXPLAIN) is read whole: its result is small.
   */
  async readPages(sql: string, options: StatementOptions, onPage: PageReader): Promise<PagedRead> {
    if (!CURSOR_VERBS.has(tokenize(sql, 'postgres')[0]?.text ?? '')) {
      const { rows, rowsAffected: _, cellsCut = 0, ...result } = await this.read(sql, options);
      if (rows.length > 0) await onPage(rows, result.columns);
      return { ...result, rows: rows.length, cellsCut };
    }
    return this.#session(this.#reads, options, async (client) => {
      await client.query('BEGIN READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${Math.ceil(options.timeoutMs)}`);
      const pages = new PagedRows(options);
      const started = performance.now();
      let columns: Column[] | undefined;
      await client.query(extended(`DECLARE sluice_rows NO SCROLL CURSOR FOR ${sql}`, options.params));
      while (!pages.done) {
        // A cancellation while a page was written finds no statement running to cancel: it is seen here.
        options.signal.throwIfAborted();
        if (performance.now() - started >= options.timeoutMs) throw statementTimeout();
        const want = pages.nextFetch;
        const result = await guarded(client, pages, () => client.query({ text: `FETCH FORWARD ${want} FROM sluice_rows`, rowMode: 'array' }));
        columns ??= await this.#columns(client, result.fields);
        if (pages.full) await onPage(pages.next(), columns);
        if (result.rowCount !== null && result.rowCount < want) break;
      }
      const last = pages.next();
      if (columns && last.length > 0) await onPage(last, columns);
      await client.query('ROLLBACK');
      return { columns: columns ?? [], ...pages.summary() };
    });
  }

  /** One consented statement, committed. */
  write(sql: string, options: StatementOptions): Promise<ResultSet> {
    return this.#session(this.#writes, options, async (client) => {
      await client.query('BEGIN');
      await client.query(`SET LOCAL statement_timeout = ${Math.ceil(options.timeoutMs)}`);
      const rows = new BudgetedRows(options, (fields) => this.#columns(client, fields));
      const result = await guarded(client, rows, () => client.query(extended(sql, options.params)));
      await client.query('COMMIT');
      const affected = ROW_COUNTING_COMMANDS.has(result.command) ? (result.rowCount ?? 0) : 0;
      return rows.resultSet(affected);
    });
  }

  /**
   * A write tried once (rehearsal.js) on a write session, in a transaction always rolled back: its
   * `lock_timeout` is the lock wait, and each statement's `statement_timeout` what is left of the budget,
   * all set for the transaction only.
   */
  rehearse(plan: RehearsalPlan, signal: AbortSignal): Promise<Rehearsed> {
    return this.#session(this.#writes, { signal }, async (client) => {
      const started = performance.now();
      await client.query('BEGIN');
      await client.query(`SET LOCAL lock_timeout = ${Math.ceil(plan.lockWaitMs)}`);
      const run: RehearsalRun = async (sql, params, maxRows) => {
        const left = Math.ceil(plan.budgetMs - (performance.now() - started));
        if (left <= 0) throw Object.assign(new Error('canceling statement due to statement timeout'), { code: CANCELED });
        await client.query(`SET LOCAL statement_timeout = ${left}`);
        const options = { params, maxRows, maxBytes: RESULTS.defaultBytes, timeoutMs: plan.budgetMs, signal };
        const rows = new BudgetedRows(options, (fields) => this.#columns(client, fields));
        const result = await guarded(client, rows, () => client.query(extended(sql, params)));
        const set = rows.resultSet(ROW_COUNTING_COMMANDS.has(result.command) ? (result.rowCount ?? 0) : 0);
        return { columns: set.columns.map((c) => c.name), rows: set.rows, rowsAffected: set.rowsAffected };
      };
      let rehearsed: Rehearsed;
      try {
        rehearsed = await rehearseSteps(plan, run);
      } catch (error) {
        const { code, message } = error as PgError;
        if (signal.aborted || !((code === CANCELED && /statement timeout/.test(message)) || code === LOCK_NOT_AVAILABLE)) throw error;
        rehearsed = { ran: false, stopped: code === CANCELED ? 'time' : 'lock' };
      }
      await client.query('ROLLBACK');
      return rehearsed;
    });
  }

  /**
   * An approved write with the rows it changes kept (keepSteps.js), in one transaction on a write session
   * within the write's `statement_timeout`, committed whether or not they could be kept.
   */
  keepWrite(plan: KeepPlan): Promise<KeptWrite> {
    const answer = plan.answer ?? { maxRows: RESULTS.defaultRows };
    return this.#session(this.#writes, plan, async (client) => {
      await client.query('BEGIN');
      await client.query(`SET LOCAL statement_timeout = ${Math.ceil(plan.timeoutMs)}`);
      const generated = await client.query<[string]>({ ...extended(GENERATED_COLUMNS, [plan.table.schema, plan.table.name]), types: EXACT_TEXT });
      const steps = keepStepsPlan(withoutGenerated(plan, new Set(generated.rows.map(([name]) => name))), 'postgres', exactDialect);
      const write = async (sql: string, params: unknown[]) => {
        const options = { maxBytes: RESULTS.defaultBytes, ...answer, params, timeoutMs: plan.timeoutMs, signal: plan.signal };
        const rows = new BudgetedRows(options, (fields) => this.#columns(client, fields));
        const result = await guarded(client, rows, () => client.query(extended(sql, params)));
        return rows.resultSet(ROW_COUNTING_COMMANDS.has(result.command) ? (result.rowCount ?? 0) : 0);
      };
      const kept = (await keepSteps(steps, keptSession(client, plan.timeoutMs, write))) as KeptWrite;
      await client.query('COMMIT');
      return kept;
    });
  }

  /**
   * A kept write taken back (restoreSteps.js) in one transaction on a write session, committed once the
   * rows are put back, rolled back when a row changed since (and not `force`).
   */
  restoreRows(plan: RestorePlan): Promise<Restored> {
    const steps = restoreStepsPlan(plan, plan.rows.columns.map((name) => ({ name, type: '' })), exactDialect);
    return this.#session(this.#writes, plan, async (client) => {
      await client.query('BEGIN');
      await client.query(`SET LOCAL statement_timeout = ${Math.ceil(plan.timeoutMs)}`);
      const restored = await restoreSteps(steps, keptSession(client, plan.timeoutMs));
      await client.query(restored.restored ? 'COMMIT' : 'ROLLBACK');
      return restored;
    });
  }

  async close(): Promise<void> {
    // A held session is out of the pool, and ending a pool waits for its sessions to come back.
    await Promise.all([...this.#held].map((held) => held.close()));
    await Promise.all([this.#reads.end(), this.#writes.end()]);
  }

  /**
   * Runs `work` on a session of `pool` as the caller's, resetting it first when another owner used it,
   * and gives it back, or closes it if the work failed. `keep` says, once the work is done, that the
   * session stays out of the pool (a held read), to be given back by whoever holds it.
   */
  async #session<T>(
    pool: pg.Pool,
    options: { signal: AbortSignal },
    work: (client: pg.PoolClient, pid: number) => Promise<T>,
    keep: () => boolean = () => false,
  ) {
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
          return work(client, pid);
        },
        () => this.#cancel(pid),
      );
    } catch (error) {
      broken = error as Error;
      throw options.signal.aborted ? error : this.#failure(error as PgError);
    } finally {
      // A session that failed mid-transaction is not reused: closing it rolls back whatever was left.
      if (broken !== undefined || !keep()) {
        client.off('error', ignore);
        client.release(broken ?? false);
      }
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
    const origins = await columnOrigins(client, fields);
    return fields.map((f) => {
      const origin = origins.get(`${f.tableID}.${f.columnID}`);
      return { name: f.name, type: TYPE_NAMES.get(f.dataTypeID) ?? '', ...(origin ? { origin } : {}) };
    });
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
    const kind = postgresFailureKind(code || undefined, error.message);
    if (kind === 'not_connected') {
      return new DriverFailure('not_connected', `the connection to the PostgreSQL server was lost: ${error.message}`, this.#secrets, code || undefined);
    }
    return new DriverFailure(kind, error.message, this.#secrets, code || undefined);
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

/**
 * The session keepSteps.js and restoreSteps.js run through, on `client` inside its transaction: `exact`
 * reads every value as its text (EXACT_TEXT) and binds text; `write` runs the approved statement; long
 * comparisons give the event loop turns. Each statement has `timeoutMs` (its `statement_timeout`), and
 * none starts once they have taken that long together.
 */
function keptSession(client: pg.PoolClient, timeoutMs: number, write: KeptSession['write'] = refuseWrite): KeptSession {
  const started = performance.now();
  const inTime = () => {
    if (performance.now() - started >= timeoutMs) throw statementTimeout();
  };
  return {
    exact: async (sql, params, keep) => {
      inTime();
      const rows = new ExactRows(keep);
      const result = await guarded(client, rows, () => client.query({ ...extended(sql, params), types: EXACT_TEXT }));
      return { rows: rows.over ? [] : rows.rows, rowsAffected: ROW_COUNTING_COMMANDS.has(result.command) ? (result.rowCount ?? 0) : 0, over: rows.over };
    },
    write: async (sql, params) => {
      inTime();
      return write(sql, params);
    },
    bind: boundExact,
    turn: nextTurn,
  };
}

/** An undo runs no approved statement. */
const refuseWrite = () => Promise.reject(new Error('an undo runs no approved statement'));

/**
 * Rows in exact form kept to `keep` (keepSteps.js): past its rows or bytes (exactBytes), `over`. The guard
 * drops what could not be kept on the socket, so a statement with many rows still runs to its end.
 */
class ExactRows {
  readonly #keep: Keep;
  readonly rows: ExactValue[][] = [];
  /** exactBytes of the rows taken so far. */
  used = 0;
  readonly #pacing = new TurnPacing(this);
  over = false;

  constructor(keep: Keep) {
    this.#keep = keep;
  }

  get rowsLeft(): number {
    return this.over ? 0 : this.#keep.rows + 1 - this.rows.length;
  }

  /** Twice the bytes left: what the guard measures of a row (its wire message) is near what exactBytes counts. */
  get allowance(): number {
    return 2 * Math.max(0, this.#keep.bytes - this.used) + 1_024;
  }

  get empty(): boolean {
    return false;
  }

  async add(result: pg.QueryArrayResult, dropped: number): Promise<void> {
    for (const row of (result.rows ?? []) as ExactValue[][]) {
      if (this.over) return;
      this.used += exactBytes(row);
      this.over = this.rows.length === this.#keep.rows || this.used > this.#keep.bytes;
      if (!this.over) this.rows.push(row);
      if (this.#pacing.due()) await nextTurn();
    }
    if (dropped > 0) this.over = true;
  }
}

/** Columns and rows kept against `maxRows` and the byte budget, batch by batch. */
class BudgetedRows {
  readonly #options: StatementOptions;
  readonly #budget: RowBudget;
  readonly #describe: (fields: pg.FieldDef[]) => Promise<Column[]>;
  readonly #rows: unknown[][] = [];
  readonly #pacing: TurnPacing;
  #columns: Column[] | undefined;
  #truncatedBy: 'max_rows' | 'max_bytes' | undefined;

  /** `describe` names the columns' types, once, when the first batch says what the columns are. */
  constructor(options: StatementOptions, describe: (fields: pg.FieldDef[]) => Promise<Column[]>) {
    this.#options = options;
    this.#budget = new RowBudget(options.maxBytes, { cellBytes: options.cellBytes, answer: options.rowsAs === 'json' });
    this.#pacing = new TurnPacing(this.#budget);
    this.#describe = describe;
  }

  /** Rows still worth reading: up to `maxRows`, and one more to know that there were more. */
  get rowsLeft(): number {
    return this.#options.maxRows + 1 - this.#rows.length;
  }

  get done(): boolean {
    return this.#truncatedBy !== undefined;
  }

  /** Rows to FETCH next: `batch` at most, and no more than would take about BATCH_BYTES at the rows' size so far. */
  nextFetch(batch: number): number {
    const { rows, used } = this.#budget;
    const byBytes = rows === 0 ? batch : Math.max(1, Math.floor((BATCH_BYTES * rows) / used));
    return Math.min(batch, byBytes, this.rowsLeft);
  }

  /** What the guard lets through for the next batch: twice the budget left (wire text is rarely longer than JSON). */
  get allowance(): number {
    return 2 * (this.#budget.maxBytes - this.#budget.used) + 1_024;
  }

  get empty(): boolean {
    return this.#budget.rows === 0;
  }

  async add(result: pg.QueryArrayResult, dropped: number): Promise<void> {
    if (!this.#columns) {
      const columns = await this.#describe(result.fields ?? []);
      this.#columns = this.#budget.takeColumns(columns, columns.length);
    }
    for (const row of result.rows ?? []) {
      if (this.done) return;
      if (this.#rows.length === this.#options.maxRows) this.#truncatedBy = 'max_rows';
      else {
        const values = wireValues(row);
        if (this.#budget.take(values)) this.#rows.push(values);
        else this.#truncatedBy = 'max_bytes';
      }
      if (this.#pacing.due()) await nextTurn();
    }
    if (dropped > 0) this.#truncatedBy ??= 'max_bytes';
  }

  resultSet(rowsAffected: number): ResultSet {
    return { columns: this.#columns ?? [], rows: this.#rows, ...this.#budget.outcome(this.#truncatedBy), rowsAffected };
  }
}

/**
 * FETCHes from the cursor `sluice_rows` into `rows` in growing batches until they are done or the cursor
 * is: 100 rows, then four times more each, up to 2,000, never more than the rows still wanted. A read
 * whose batches together pass `timeoutMs` ends before its next batch.
 */
async function fetchBatches(client: pg.PoolClient, rows: BudgetedRows, timeoutMs: number): Promise<void> {
  const started = performance.now();
  for (let batch = FIRST_BATCH; !rows.done; batch = Math.min(batch * 4, LARGEST_BATCH)) {
    if (batch > FIRST_BATCH && performance.now() - started >= timeoutMs) throw statementTimeout();
    const want = rows.nextFetch(batch);
    const result = await guarded(client, rows, () => client.query({ text: `FETCH FORWARD ${want} FROM sluice_rows`, rowMode: 'array' }));
    if (result.rowCount !== null && result.rowCount < want) return;
  }
}

/** What a held read asks of the sessions that made it. */
type HeldSession = {
  page(options: StatementOptions, position: number): Promise<HeldPage<unknown[][]>>;
  cancel(): Promise<void>;
  failure(error: PgError): Error;
  closed(): void;
};

/** The rest of a cut read, its session and transaction held; `position` is the rows handed on so far (the next page's MOVE ABSOLUTE). */
class HeldPostgresRead extends HeldPages {
  readonly #client: pg.PoolClient;
  readonly #session: HeldSession;
  #position: number;

  constructor(client: pg.PoolClient, position: number, rowsAs: StatementOptions['rowsAs'], session: HeldSession) {
    super(rowsAs);
    this.#client = client;
    this.#position = position;
    this.#session = session;
  }

  protected page(page: StatementOptions): Promise<HeldPage<unknown[][]>> {
    return cancellable(page.signal, () => this.#session.page(page, this.#position), () => this.#session.cancel());
  }

  protected readOnAfter(handed: number): void {
    this.#position += handed;
  }

  protected override failure(error: unknown): unknown {
    return this.#session.failure(error as PgError);
  }

  /** A failed transaction (or one cancelled mid-statement) closes its session rather than reuse it. */
  protected async release(broken: Error | undefined): Promise<void> {
    this.#session.closed();
    let failed = broken;
    if (!failed) await this.#client.query('ROLLBACK').catch((error: unknown) => (failed = error as Error));
    this.#client.off('error', ignore);
    this.#client.release(failed ?? false);
  }
}

/** A paged read's rows as the session's guard sees them: what it may still let through, page by page. */
class PagedRows extends RowPages {
  constructor(options: StatementOptions) {
    super({ ...options, pageRows: EXPORTS.pageRows, pageBytes: EXPORTS.pageBytes });
  }

  /** Rows to FETCH next: a first few, then what fills the page, its rows or (at the rows' size so far) its bytes. */
  get nextFetch(): number {
    const rowBytes = this.count === 0 ? 0 : this.budget.used / this.count;
    const byBytes = rowBytes === 0 ? FIRST_BATCH : Math.floor((this.pageBytes - (this.budget.used - this.pageStart)) / rowBytes);
    return Math.max(1, Math.min(this.pageRows - this.page.length, byBytes, this.rowsLeft));
  }

  get allowance(): number {
    return 2 * (this.budget.maxBytes - this.budget.used) + 1_024;
  }

  get empty(): boolean {
    return this.count === 0;
  }

  add(result: pg.QueryArrayResult, dropped: number): void {
    for (const row of result.rows ?? []) if (!this.take(wireValues(row))) return;
    if (dropped > 0) this.truncatedBy ??= 'max_bytes';
  }
}

/** What a guarded query needs of the rows it adds to: what the guard may let through, and where rows go. */
type GuardedRows = Pick<BudgetedRows, 'allowance' | 'empty' | 'rowsLeft'> & {
  add(result: pg.QueryArrayResult, dropped: number): void | Promise<void>;
};

/**
 * Runs one query with the session's guard armed for what `rows` can still take, and keeps its rows:
 * a statement without a cursor (a write's RETURNING, SHOW) still runs to its end, but what it sends
 * past `maxRows` + 1 rows or the budget is dropped on the socket.
 */
async function guarded(client: pg.PoolClient, rows: GuardedRows, query: () => Promise<pg.QueryArrayResult>) {
  const guard = guardOf(client);
  guard.arm(rows.allowance, rows.empty, rows.rowsLeft);
  let result: pg.QueryArrayResult;
  let dropped: number;
  try {
    result = await query();
    dropped = guard.dropped;
  } finally {
    guard.disarm();
  }
  // Once disarmed: naming the columns' types is a query of its own on this session.
  await rows.add(result, dropped);
  return result;
}

const tlsGuards = new WeakMap<pg.PoolClient, Guard>();

/** An encrypted session's guard sits on the TLS socket `pg` put over the GuardedSocket. */
function guardTls(client: pg.PoolClient): void {
  tlsGuards.set(client, guardInPlace((client as unknown as { connection: { stream: Socket } }).connection.stream));
}

const guardOf = (client: pg.PoolClient): Guard =>
  tlsGuards.get(client) ?? (client as unknown as { connection: { stream: GuardedSocket } }).connection.stream;

/**
 * The table columns a result's fields read, by `tableOid.columnNumber`, as PostgreSQL reports them for a
 * plain read of a column. Asked each time, not cached: a column renamed since would keep its old name.
 */
async function columnOrigins(client: pg.PoolClient, fields: pg.FieldDef[]): Promise<Map<string, ColumnOrigin>> {
  const tables = [...new Set(fields.filter((f) => f.tableID > 0 && f.columnID > 0).map((f) => f.tableID))];
  if (tables.length === 0) return new Map();
  const found = await client.query<[number, number, string, string, string]>({
    text: `SELECT a.attrelid::bigint, a.attnum::int, n.nspname, c.relname, a.attname
             FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
             JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE a.attrelid = ANY($1::oid[]) AND a.attnum > 0`,
    values: [tables],
    rowMode: 'array',
  });
  return new Map(found.rows.map(([table, column, schema, relation, name]) => [`${table}.${column}`, { schema, table: relation, column: name }]));
}
