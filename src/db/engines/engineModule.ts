import type { Engine } from '../../core/shared/engineNames.js';
import type { AppClock } from '../../core/clock.js';
import type { SqlDialect } from '../../sql/browseSql.js';
import type { ColumnReads } from '../../sql/columnReads.js';
import type { NotSelectable, RowSelection } from '../../sql/countQuery.js';
import type { CheckResult } from '../analysis/healthFindings.js';
import type { IndexAdvice, IndexAdviceOptions, SlowQueries, SlowQueriesOptions } from '../analysis/performanceFindings.js';
import type { SchemaObjectQueries } from '../catalog/schemaObjects.js';
import type { DatabaseStatistics, EngineTableStatistics, TableStatisticsRequest } from '../catalog/statistics.js';
import type { SavedConnection } from '../connections/savedConnections.js';
import type { Database } from '../database.js';
import type { SqliteProcessPool } from './sqlite/processPool.js';
import type { SshPlaces } from '../reach/sshTunnel.js';

/** What opening a driver may use besides the connection: the clock, where SSH tunnels find host keys, the shared SQLite query processes. */
export type OpenContext = { clock: AppClock; ssh: SshPlaces | undefined; sqlite: SqliteProcessPool | undefined };

/** How a connection check reads the engine's version, and (on a server) the session's TLS protocol. */
export type EngineProbe = {
  /** One row whose first cell is the engine's version. */
  versionSql: string;
  /** The raw version as people read it: `15.4 (Debian …)` → `PostgreSQL 15.4`. */
  productVersion(raw: string): string;
  /** The statement whose column named `column` is the session's TLS protocol (no row: no TLS); absent for files. */
  tls?: { sql: string; column: string };
  /** The file that must exist before the engine opens it; absent for servers and in-memory databases. */
  fileOf?(connection: SavedConnection): string | undefined;
  /** The message for a failure the engine's own words explain badly (`file is not a database`). */
  explainFailure?(reason: string, connection: SavedConnection): string | undefined;
};

export type EngineStatistics = {
  tables(db: Database, request: TableStatisticsRequest, signal: AbortSignal): Promise<EngineTableStatistics>;
  database(db: Database, signal: AbortSignal): Promise<DatabaseStatistics>;
};

export type EngineHealth = (db: Database, signal: AbortSignal) => Promise<CheckResult[]>;

export type QueryPerformance = {
  /** The statements that took longest (pg_stat_statements, performance_schema). */
  slowQueries?(db: Database, options: SlowQueriesOptions): Promise<SlowQueries>;
  /** Index advice for one query's plan. */
  queryIndexAdvice?(db: Database, options: IndexAdviceOptions & { sql: string }): Promise<IndexAdvice>;
  /** Index advice from the whole workload's table statistics, when no query is given. */
  workloadIndexAdvice?(db: Database, options: IndexAdviceOptions): Promise<IndexAdvice>;
};

/**
 * What about a table lets a write tried on it in a rolled-back transaction escape the transaction or
 * reach other tables: triggers (PostgreSQL's rules too), other tables' foreign keys that cascade from it
 * (an UPDATE or DELETE), a sequence or auto-increment counter an INSERT advances, and a table that is no
 * plain table of a transactional engine (`notPlain`: what it is).
 */
export type TableEscapes = { triggers: boolean; cascades: boolean; sequence: boolean; notPlain?: string };

/** How the confirmation dialog of an UPDATE or DELETE previews the rows it touches. */
export type EffectEstimates = {
  /** What could make a write to the table escape the transaction it is tried in (capabilities/exactEffect.ts). */
  tableEscapes(db: Database, table: { schema: string; name: string }, signal: AbortSignal): Promise<TableEscapes>;
  /** The table and condition of an UPDATE or DELETE, as a SELECT can reuse them. */
  rowSelection(sql: string, params: unknown[]): Promise<RowSelection | NotSelectable>;
  /** The planner's estimate of the rows `select` returns; absent when the engine keeps none. */
  plannedRows?(db: Database, select: string, params: unknown[], signal: AbortSignal, timeoutMs: number): Promise<number | undefined>;
  /** Why there is no estimate when counting timed out (default: the planner gave none). */
  whyNoEstimate?: string;
};

/**
 * Everything the rest of Sluice may use of one engine: each engine's `index.ts` exports one of these,
 * and `registry.ts` lists them. A capability the engine lacks is an absent member: the feature asking
 * for it says "unsupported" (with `unsupported[...]` where the engine says why) instead of testing the
 * engine's name.
 */
export type EngineModule = {
  readonly engine: Engine;
  /** Opens a fresh driver for a saved connection of this engine. */
  open(connection: SavedConnection, context: OpenContext): Database;
  probe: EngineProbe;
  /** How SQL that Sluice writes quotes names and numbers placeholders. */
  dialect: SqlDialect;
  schemaObjects: SchemaObjectQueries;
  statistics?: EngineStatistics;
  health?: EngineHealth;
  performance?: QueryPerformance;
  effects: EffectEstimates;
  /** A file database has one database, named after its file (`list_databases`); absent for servers. */
  fileDatabaseName?(connection: SavedConnection): string;
  /** Connections of this engine share one pool (SQLite's query processes): a token's share is of the pool. */
  sharedPool?: true;
  /**
   * Checks a statement with the engine's own parser, without a server (PostgreSQL's, in WebAssembly):
   * a `DriverFailure` (`invalid_argument`, the parser's message) when it does not parse.
   */
  parse?(sql: string): Promise<unknown>;
  /**
   * Its driver has `Database.holdRead`: a cut read stays open on its snapshot behind a `next_cursor`.
   * Without it a cut answer has no next page (the capabilities ask the driver; tests ask this).
   */
  holdsReads?: true;
  /** Booleans are bound as 1 and 0 (SQLite has no boolean type). */
  bindsBooleansAsNumbers?: true;
  /**
   * Where a statement reads which columns, from the engine's own parser; absent: the token analysis
   * (sql/columnReads.ts) answers, which refuses more.
   */
  columnReads?(sql: string): Promise<ColumnReads>;
  /** Why an absent capability is absent, where the generic message would not say enough. */
  unsupported?: { indexAdvice?: string };
};
