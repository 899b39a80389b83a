import { type Database, ENGINE_NAMES } from '../database.js';
import { DriverFailure } from '../driverFailure.js';
import type { EngineStatistics } from '../engines/engineModule.js';
import { engineModule } from '../engines/registry.js';

/** Tables one table_statistics call reports at most; more sets `is_truncated`. */
export const TABLE_STATISTICS_LIMIT = 500;

/**
 * Where a table's `estimated_rows` comes from: `count` is exact (SQLite, counted within
 * `DATABASES.sqliteExactCountBudgetMs`); the others are the engine's estimates: SQLite's sqlite_stat1 (as
 * of the last ANALYZE), PostgreSQL's pg_class.reltuples, MySQL's information_schema.TABLES.TABLE_ROWS.
 */
/** Where a table's row figure comes from: an exact count, or the engine's estimate. */
export const ROW_COUNT_SOURCES = ['count', 'sqlite_stat1', 'pg_class', 'information_schema'] as const;
export type RowCountSource = (typeof ROW_COUNT_SOURCES)[number];

/**
 * One table's statistics. A field the engine does not keep is null: the analyze and vacuum times, dead
 * tuples and scan counts are PostgreSQL's; `auto_increment` and `update_time` MySQL's; SQLite has rows
 * (counted, else from sqlite_stat1) and sizes (from dbstat) only.
 */
export type TableStatistics = {
  table: string;
  estimated_rows: number | null;
  /** Null when `estimated_rows` is. */
  row_count_source: RowCountSource | null;
  total_bytes: number | null;
  table_bytes: number | null;
  index_bytes: number | null;
  last_analyze: string | null;
  last_autoanalyze: string | null;
  last_vacuum: string | null;
  last_autovacuum: string | null;
  dead_tuples: number | null;
  seq_scans: number | null;
  index_scans: number | null;
  auto_increment: number | null;
  update_time: string | null;
};

/** What an engine answers: at most `limit + 1` tables (the extra one says there are more), and notes on what it could not tell. */
export type EngineTableStatistics = { tables: TableStatistics[]; notes: string[] };

export type TableStatisticsRequest = { schema: string; table: string | undefined; limit: number };

/**
 * A database's statistics. Engine fields it lacks are null: cache hit ratio, connections, uptime,
 * transactions and deadlocks on the servers; page size, page count, freelist and journal mode on SQLite.
 */
export type DatabaseStatistics = {
  database: string;
  engine_version: string;
  size_bytes: number | null;
  table_count: number;
  index_count: number;
  cache_hit_ratio: number | null;
  connections: number | null;
  max_connections: number | null;
  uptime_seconds: number | null;
  transactions_committed: number | null;
  transactions_rolled_back: number | null;
  deadlocks: number | null;
  page_size: number | null;
  page_count: number | null;
  freelist_count: number | null;
  journal_mode: string | null;
};

function statisticsOf(db: Database): EngineStatistics {
  const { statistics } = engineModule(db.engine);
  if (!statistics) throw new DriverFailure('unsupported', `statistics are not available for ${ENGINE_NAMES[db.engine]} connections`);
  return statistics;
}

export async function tableStatistics(
  db: Database,
  request: TableStatisticsRequest,
  signal: AbortSignal,
): Promise<{ tables: TableStatistics[]; is_truncated: boolean; notes: string[] }> {
  const { tables, notes } = await statisticsOf(db).tables(db, request, signal);
  return { tables: tables.slice(0, request.limit), is_truncated: tables.length > request.limit, notes };
}

export function databaseStatistics(db: Database, signal: AbortSignal): Promise<DatabaseStatistics> {
  return statisticsOf(db).database(db, signal);
}
