import { catalogRead, numberOrNull, ratio, textOrNull } from '../../catalog/catalogRead.js';
import type { Database } from '../../database.js';
import type { DatabaseStatistics, EngineTableStatistics, TableStatisticsRequest } from '../../catalog/statistics.js';

/** Schemas that are the user's: not pg_catalog, pg_toast, pg_temp_N or information_schema. */
export const USER_SCHEMA = "n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'";
/** A timestamp as ISO 8601 in UTC. */
export const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

/** Ordinary, partitioned and materialized tables with their sizes and pg_stat_all_tables' counters (reltuples -1: never analyzed). */
const TABLES = `SELECT c.relname, CASE WHEN c.reltuples < 0 THEN NULL ELSE c.reltuples::bigint END,
    pg_total_relation_size(c.oid), pg_table_size(c.oid), pg_indexes_size(c.oid),
    ${iso('s.last_analyze')}, ${iso('s.last_autoanalyze')}, ${iso('s.last_vacuum')}, ${iso('s.last_autovacuum')},
    s.n_dead_tup, s.seq_scan, s.idx_scan
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_stat_all_tables s ON s.relid = c.oid
  WHERE c.relkind IN ('r', 'p', 'm') AND n.nspname = $1 AND ($2::text IS NULL OR c.relname = $2)
  ORDER BY c.relname COLLATE "C" LIMIT $3`;

export async function postgresTableStatistics(
  db: Database,
  { schema, table, limit }: TableStatisticsRequest,
  signal: AbortSignal,
): Promise<EngineTableStatistics> {
  const rows = await catalogRead(db, TABLES, [schema, table ?? null, limit + 1], signal);
  const tables = rows.map(([name, estimate, total, heap, indexes, analyze, autoanalyze, vacuum, autovacuum, dead, seq, idx]) => ({
    table: String(name),
    estimated_rows: numberOrNull(estimate),
    row_count_source: numberOrNull(estimate) === null ? null : ('pg_class' as const),
    total_bytes: numberOrNull(total),
    table_bytes: numberOrNull(heap),
    index_bytes: numberOrNull(indexes),
    last_analyze: textOrNull(analyze),
    last_autoanalyze: textOrNull(autoanalyze),
    last_vacuum: textOrNull(vacuum),
    last_autovacuum: textOrNull(autovacuum),
    dead_tuples: numberOrNull(dead),
    seq_scans: numberOrNull(seq),
    index_scans: numberOrNull(idx),
    auto_increment: null,
    update_time: null,
  }));
  const unanalyzed = tables.some((t) => t.estimated_rows === null);
  return { tables, notes: unanalyzed ? ['estimated_rows is null for a table never analyzed'] : [] };
}

/** The cache and transaction counters are pg_stat_database's since its last reset; connections count client backends of the server. */
const DATABASE = `SELECT current_database(), current_setting('server_version'), pg_database_size(current_database()),
    (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p') AND ${USER_SCHEMA}),
    (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('i', 'I') AND ${USER_SCHEMA}),
    d.blks_hit, d.blks_read, d.xact_commit, d.xact_rollback, d.deadlocks,
    (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'), current_setting('max_connections')::int,
    floor(extract(epoch FROM now() - pg_postmaster_start_time()))::bigint
  FROM pg_stat_database d WHERE d.datname = current_database()`;

export async function postgresDatabaseStatistics(db: Database, signal: AbortSignal): Promise<DatabaseStatistics> {
  const [[name, version, size, tables, indexes, hit, read, committed, rolledBack, deadlocks, connections, maxConnections, uptime] = []] =
    await catalogRead(db, DATABASE, [], signal);
  const hits = numberOrNull(hit);
  const reads = numberOrNull(read);
  return {
    database: String(name),
    engine_version: String(version),
    size_bytes: numberOrNull(size),
    table_count: Number(tables),
    index_count: Number(indexes),
    cache_hit_ratio: cacheHitRatio(hits, reads),
    connections: numberOrNull(connections),
    max_connections: numberOrNull(maxConnections),
    uptime_seconds: numberOrNull(uptime),
    transactions_committed: numberOrNull(committed),
    transactions_rolled_back: numberOrNull(rolledBack),
    deadlocks: numberOrNull(deadlocks),
    page_size: null,
    page_count: null,
    freelist_count: null,
    journal_mode: null,
  };
}

/** Blocks found in shared buffers over blocks asked for (blks_hit / (blks_hit + blks_read)). */
export const cacheHitRatio = (hits: number | null, reads: number | null) => ratio(hits, hits === null || reads === null ? null : hits + reads);
