import { catalogRows, numberOrNull, ratio, textOrNull } from '../../catalog/catalogRead.js';
import type { Database } from '../../database.js';
import type { DatabaseStatistics, EngineTableStatistics, TableStatisticsRequest } from '../../catalog/statistics.js';

/** Schemas that are the user's: not pg_catalog, pg_toast, pg_temp_N or information_schema. */
export const USER_SCHEMA = "n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'";
/** A timestamp as ISO 8601 in UTC. */
export const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

/** Ordinary, partitioned and materialized tables with their sizes and pg_stat_all_tables' counters (reltuples -1: never analyzed). */
const TABLES = `SELECT c.relname AS table_name, CASE WHEN c.reltuples < 0 THEN NULL ELSE c.reltuples::bigint END AS estimated_rows,
    pg_total_relation_size(c.oid) AS total_bytes, pg_table_size(c.oid) AS table_bytes, pg_indexes_size(c.oid) AS index_bytes,
    ${iso('s.last_analyze')} AS last_analyze, ${iso('s.last_autoanalyze')} AS last_autoanalyze,
    ${iso('s.last_vacuum')} AS last_vacuum, ${iso('s.last_autovacuum')} AS last_autovacuum,
    s.n_dead_tup AS dead_tuples, s.seq_scan AS seq_scans, s.idx_scan AS index_scans
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_stat_all_tables s ON s.relid = c.oid
  WHERE c.relkind IN ('r', 'p', 'm') AND n.nspname = $1 AND ($2::text IS NULL OR c.relname = $2)
  ORDER BY c.relname COLLATE "C" LIMIT $3`;

export async function postgresTableStatistics(
  db: Database,
  { schema, table, limit }: TableStatisticsRequest,
  signal: AbortSignal,
): Promise<EngineTableStatistics> {
  const { rows } = await catalogRows(db, TABLES, [schema, table ?? null, limit + 1], signal);
  const tables = rows.map((row) => ({
    table: String(row.table_name),
    estimated_rows: numberOrNull(row.estimated_rows),
    row_count_source: numberOrNull(row.estimated_rows) === null ? null : ('pg_class' as const),
    total_bytes: numberOrNull(row.total_bytes),
    table_bytes: numberOrNull(row.table_bytes),
    index_bytes: numberOrNull(row.index_bytes),
    last_analyze: textOrNull(row.last_analyze),
    last_autoanalyze: textOrNull(row.last_autoanalyze),
    last_vacuum: textOrNull(row.last_vacuum),
    last_autovacuum: textOrNull(row.last_autovacuum),
    dead_tuples: numberOrNull(row.dead_tuples),
    seq_scans: numberOrNull(row.seq_scans),
    index_scans: numberOrNull(row.index_scans),
    auto_increment: null,
    update_time: null,
  }));
  const unanalyzed = tables.some((t) => t.estimated_rows === null);
  return { tables, notes: unanalyzed ? ['estimated_rows is null for a table never analyzed'] : [] };
}

/** The cache and transaction counters are pg_stat_database's since its last reset; connections count client backends of the server. */
const DATABASE = `SELECT current_database() AS database_name, current_setting('server_version') AS version,
    pg_database_size(current_database()) AS size_bytes,
    (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p') AND ${USER_SCHEMA}) AS table_count,
    (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('i', 'I') AND ${USER_SCHEMA}) AS index_count,
    d.blks_hit AS hits, d.blks_read AS reads, d.xact_commit AS committed, d.xact_rollback AS rolled_back, d.deadlocks,
    (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend') AS connections,
    current_setting('max_connections')::int AS max_connections,
    floor(extract(epoch FROM now() - pg_postmaster_start_time()))::bigint AS uptime_seconds
  FROM pg_stat_database d WHERE d.datname = current_database()`;

export async function postgresDatabaseStatistics(db: Database, signal: AbortSignal): Promise<DatabaseStatistics> {
  const { rows } = await catalogRows(db, DATABASE, [], signal);
  const row = rows[0] ?? {};
  return {
    database: String(row.database_name),
    engine_version: String(row.version),
    size_bytes: numberOrNull(row.size_bytes),
    table_count: Number(row.table_count),
    index_count: Number(row.index_count),
    cache_hit_ratio: cacheHitRatio(numberOrNull(row.hits), numberOrNull(row.reads)),
    connections: numberOrNull(row.connections),
    max_connections: numberOrNull(row.max_connections),
    uptime_seconds: numberOrNull(row.uptime_seconds),
    transactions_committed: numberOrNull(row.committed),
    transactions_rolled_back: numberOrNull(row.rolled_back),
    deadlocks: numberOrNull(row.deadlocks),
    page_size: null,
    page_count: null,
    freelist_count: null,
    journal_mode: null,
  };
}

/** Blocks found in shared buffers over blocks asked for (blks_hit / (blks_hit + blks_read)). */
export const cacheHitRatio = (hits: number | null, reads: number | null) => ratio(hits, hits === null || reads === null ? null : hits + reads);
