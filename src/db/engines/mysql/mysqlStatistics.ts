import { catalogRows, numberOrNull, ratio, textOrNull } from '../../catalog/catalogRead.js';
import type { Database } from '../../database.js';
import type { DatabaseStatistics, EngineTableStatistics, TableStatisticsRequest } from '../../catalog/statistics.js';

/** information_schema.TABLES: rows and sizes are the storage engine's estimates; UPDATE_TIME is the server's local time. */
const TABLES = `SELECT TABLE_NAME AS table_name, TABLE_ROWS AS estimated_rows, DATA_LENGTH + INDEX_LENGTH AS total_bytes,
    DATA_LENGTH AS table_bytes, INDEX_LENGTH AS index_bytes, AUTO_INCREMENT AS auto_increment, UPDATE_TIME AS update_time
  FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' AND (? IS NULL OR TABLE_NAME = ?)
  ORDER BY BINARY TABLE_NAME LIMIT ?`;

export async function mysqlTableStatistics(
  db: Database,
  { schema, table, limit }: TableStatisticsRequest,
  signal: AbortSignal,
): Promise<EngineTableStatistics> {
  const { rows } = await catalogRows(db, TABLES, [schema, table ?? null, table ?? null, limit + 1], signal);
  const tables = rows.map((row) => ({
    table: String(row.table_name),
    estimated_rows: numberOrNull(row.estimated_rows),
    row_count_source: numberOrNull(row.estimated_rows) === null ? null : ('information_schema' as const),
    total_bytes: numberOrNull(row.total_bytes),
    table_bytes: numberOrNull(row.table_bytes),
    index_bytes: numberOrNull(row.index_bytes),
    last_analyze: null,
    last_autoanalyze: null,
    last_vacuum: null,
    last_autovacuum: null,
    dead_tuples: null,
    seq_scans: null,
    index_scans: null,
    auto_increment: numberOrNull(row.auto_increment),
    update_time: textOrNull(row.update_time),
  }));
  return { tables, notes: [] };
}

const DATABASE = `SELECT VERSION() AS version, @@GLOBAL.max_connections AS max_connections,
    (SELECT SUM(DATA_LENGTH + INDEX_LENGTH) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?) AS size_bytes,
    (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE') AS table_count,
    (SELECT COUNT(DISTINCT TABLE_NAME, INDEX_NAME) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ?) AS index_count`;
const STATUS_NAMES = [
  'THREADS_CONNECTED',
  'UPTIME',
  'INNODB_BUFFER_POOL_READ_REQUESTS',
  'INNODB_BUFFER_POOL_READS',
  'COM_COMMIT',
  'COM_ROLLBACK',
  'INNODB_DEADLOCKS',
] as const;
/** MariaDB and MySQL 5.7 keep the server's status in information_schema; MySQL 8 only in performance_schema. */
const STATUS_TABLES = ['information_schema.GLOBAL_STATUS', 'performance_schema.global_status'];

/** The server's status counters by upper-case name, from whichever table this server has; empty when neither can be read. */
async function globalStatus(db: Database, signal: AbortSignal): Promise<Map<string, number | null>> {
  for (const table of STATUS_TABLES) {
    const read = await catalogRows(
      db,
      `SELECT UPPER(VARIABLE_NAME) AS name, VARIABLE_VALUE AS value FROM ${table} WHERE UPPER(VARIABLE_NAME) IN (${STATUS_NAMES.map(() => '?').join(', ')})`,
      [...STATUS_NAMES],
      signal,
    ).catch(() => undefined);
    if (read?.rows.length) return new Map(read.rows.map((row) => [String(row.name), numberOrNull(row.value)]));
  }
  return new Map();
}

/**
 * The connection's database (its schema): size is data plus indexes of its tables. Threads, uptime, the
 * buffer pool's hit ratio (1 − reads from disk / read requests), commits, rollbacks and deadlocks are
 * the server's, since it started; `Innodb_deadlocks` exists on MariaDB only.
 */
export async function mysqlDatabaseStatistics(db: Database, signal: AbortSignal): Promise<DatabaseStatistics> {
  const schema = db.defaultSchema();
  const { rows } = await catalogRows(db, DATABASE, [schema, schema, schema], signal);
  const row = rows[0] ?? {};
  const status = await globalStatus(db, signal);
  const requests = status.get('INNODB_BUFFER_POOL_READ_REQUESTS') ?? null;
  const diskReads = status.get('INNODB_BUFFER_POOL_READS') ?? null;
  return {
    database: schema,
    engine_version: String(row.version),
    size_bytes: numberOrNull(row.size_bytes) ?? 0,
    table_count: Number(row.table_count),
    index_count: Number(row.index_count),
    cache_hit_ratio: requests === null || diskReads === null ? null : ratio(requests - diskReads, requests),
    connections: status.get('THREADS_CONNECTED') ?? null,
    max_connections: numberOrNull(row.max_connections),
    uptime_seconds: status.get('UPTIME') ?? null,
    transactions_committed: status.get('COM_COMMIT') ?? null,
    transactions_rolled_back: status.get('COM_ROLLBACK') ?? null,
    deadlocks: status.get('INNODB_DEADLOCKS') ?? null,
    page_size: null,
    page_count: null,
    freelist_count: null,
    journal_mode: null,
  };
}
