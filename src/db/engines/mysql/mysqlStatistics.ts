import { catalogRead, numberOrNull, ratio, textOrNull } from '../../catalog/catalogRead.js';
import type { Database } from '../../database.js';
import type { DatabaseStatistics, EngineTableStatistics, TableStatisticsRequest } from '../../catalog/statistics.js';

/** information_schema.TABLES: rows and sizes are the storage engine's estimates; UPDATE_TIME is the server's local time. */
const TABLES = `SELECT TABLE_NAME, TABLE_ROWS, DATA_LENGTH + INDEX_LENGTH, DATA_LENGTH, INDEX_LENGTH, AUTO_INCREMENT, UPDATE_TIME
  FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' AND (? IS NULL OR TABLE_NAME = ?)
  ORDER BY BINARY TABLE_NAME LIMIT ?`;

export async function mysqlTableStatistics(
  db: Database,
  { schema, table, limit }: TableStatisticsRequest,
  signal: AbortSignal,
): Promise<EngineTableStatistics> {
  const rows = await catalogRead(db, TABLES, [schema, table ?? null, table ?? null, limit + 1], signal);
  const tables = rows.map(([name, estimate, total, data, indexes, autoIncrement, updated]) => ({
    table: String(name),
    estimated_rows: numberOrNull(estimate),
    row_count_source: numberOrNull(estimate) === null ? null : ('information_schema' as const),
    total_bytes: numberOrNull(total),
    table_bytes: numberOrNull(data),
    index_bytes: numberOrNull(indexes),
    last_analyze: null,
    last_autoanalyze: null,
    last_vacuum: null,
    last_autovacuum: null,
    dead_tuples: null,
    seq_scans: null,
    index_scans: null,
    auto_increment: numberOrNull(autoIncrement),
    update_time: textOrNull(updated),
  }));
  return { tables, notes: [] };
}

const DATABASE = `SELECT VERSION(), @@GLOBAL.max_connections,
    (SELECT SUM(DATA_LENGTH + INDEX_LENGTH) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?),
    (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE'),
    (SELECT COUNT(DISTINCT TABLE_NAME, INDEX_NAME) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ?)`;
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
    const rows = await catalogRead(
      db,
      `SELECT UPPER(VARIABLE_NAME), VARIABLE_VALUE FROM ${table} WHERE UPPER(VARIABLE_NAME) IN (${STATUS_NAMES.map(() => '?').join(', ')})`,
      [...STATUS_NAMES],
      signal,
    ).catch(() => undefined);
    if (rows?.length) return new Map(rows.map(([name, value]) => [String(name), numberOrNull(value)]));
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
  const [[version, maxConnections, size, tables, indexes] = []] = await catalogRead(db, DATABASE, [schema, schema, schema], signal);
  const status = await globalStatus(db, signal);
  const requests = status.get('INNODB_BUFFER_POOL_READ_REQUESTS') ?? null;
  const diskReads = status.get('INNODB_BUFFER_POOL_READS') ?? null;
  return {
    database: schema,
    engine_version: String(version),
    size_bytes: numberOrNull(size) ?? 0,
    table_count: Number(tables),
    index_count: Number(indexes),
    cache_hit_ratio: requests === null || diskReads === null ? null : ratio(requests - diskReads, requests),
    connections: status.get('THREADS_CONNECTED') ?? null,
    max_connections: numberOrNull(maxConnections),
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
