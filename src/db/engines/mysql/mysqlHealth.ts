import { catalogRows } from '../../catalog/catalogRead.js';
import type { Database } from '../../database.js';
import { type CheckResult, FINDINGS_PER_CHECK, type HealthFinding, LONG_RUNNING_SECONDS } from '../../analysis/healthFindings.js';
import { indexShapes, overlappingIndexes } from '../../analysis/indexOverlap.js';

/** Index key columns compared for duplicates at most. */
const INDEX_COLUMNS_COMPARED = 10_000;

const LIMIT = FINDINGS_PER_CHECK + 1;

const PERFORMANCE_SCHEMA = 'SELECT @@performance_schema AS recording';
/** Never used since the server started (performance_schema's counters); unique indexes enforce something, so they stay. */
const UNUSED_INDEXES = `SELECT u.OBJECT_NAME AS table_name, u.INDEX_NAME AS index_name FROM performance_schema.table_io_waits_summary_by_index_usage u
  WHERE u.OBJECT_SCHEMA = ? AND u.INDEX_NAME IS NOT NULL AND u.INDEX_NAME <> 'PRIMARY' AND u.COUNT_STAR = 0
    AND EXISTS (SELECT 1 FROM information_schema.STATISTICS s
      WHERE s.TABLE_SCHEMA = u.OBJECT_SCHEMA AND s.TABLE_NAME = u.OBJECT_NAME AND s.INDEX_NAME = u.INDEX_NAME AND s.NON_UNIQUE = 1)
  ORDER BY BINARY u.OBJECT_NAME, BINARY u.INDEX_NAME LIMIT ?`;
const INDEX_COLUMNS = `SELECT TABLE_NAME AS table_name, INDEX_NAME AS index_name, NON_UNIQUE = 0 AS is_unique, INDEX_TYPE AS index_type,
    CONCAT(COALESCE(COLUMN_NAME, '<expression>'), COALESCE(CONCAT('(', SUB_PART, ')'), '')) AS key_part
  FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? ORDER BY BINARY TABLE_NAME, BINARY INDEX_NAME, SEQ_IN_INDEX LIMIT ?`;
/** InnoDB transactions open too long, server-wide (they hold back purge for every database): never their statement text. */
const LONG_TRANSACTIONS = `SELECT trx_mysql_thread_id AS thread, trx_state AS state, TIMESTAMPDIFF(SECOND, trx_started, NOW()) AS seconds,
    trx_rows_locked AS rows_locked
  FROM information_schema.INNODB_TRX WHERE trx_started < NOW() - INTERVAL ? SECOND ORDER BY trx_started LIMIT ?`;
const WITHOUT_PRIMARY_KEY = `SELECT t.TABLE_NAME AS table_name FROM information_schema.TABLES t
  WHERE t.TABLE_SCHEMA = ? AND t.TABLE_TYPE = 'BASE TABLE' AND NOT EXISTS (SELECT 1 FROM information_schema.TABLE_CONSTRAINTS c
    WHERE c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME AND c.CONSTRAINT_TYPE = 'PRIMARY KEY')
  ORDER BY BINARY t.TABLE_NAME LIMIT ?`;

/** The connection's database (its schema), and the server's long transactions. */
export async function mysqlHealth(db: Database, signal: AbortSignal): Promise<CheckResult[]> {
  const schema = db.defaultSchema();
  const read = async (sql: string, params: unknown[]) => (await catalogRows(db, sql, params, signal)).rows;

  const recording = Number((await read(PERFORMANCE_SCHEMA, []))[0]?.recording) === 1;
  const unused: HealthFinding[] = recording
    ? (await read(UNUSED_INDEXES, [schema, LIMIT])).map((row) => ({
        check: 'unused_indexes',
        severity: 'info',
        object: `${schema}.${String(row.table_name)}.${String(row.index_name)}`,
        detail: 'never used since the server started',
      }))
    : [{ check: 'unused_indexes', severity: 'info', detail: 'not available: performance_schema is off, so index use is not recorded' }];

  const keyColumns = (await read(INDEX_COLUMNS, [schema, INDEX_COLUMNS_COMPARED])).map((row) => ({
    schema,
    table: String(row.table_name),
    name: String(row.index_name),
    unique: Number(row.is_unique) === 1,
    kind: String(row.index_type),
    leadingPrefixServes: row.index_type === 'BTREE',
    column: String(row.key_part),
  }));
  const { duplicates, redundant } = overlappingIndexes(indexShapes(keyColumns));

  const longTransactions: HealthFinding[] = await read(LONG_TRANSACTIONS, [LONG_RUNNING_SECONDS, LIMIT]).then(
    (rows) =>
      rows.map((row) => ({
        check: 'long_running_transactions',
        severity: 'warning',
        object: `thread ${Number(row.thread)}`,
        detail: `${String(row.state)} for ${Number(row.seconds)} s, ${Number(row.rows_locked)} row(s) locked`,
      })),
    () => [{ check: 'long_running_transactions', severity: 'info', detail: 'not available: information_schema.INNODB_TRX cannot be read (it needs the PROCESS privilege)' }],
  );

  const noPrimaryKey = (await read(WITHOUT_PRIMARY_KEY, [schema, LIMIT])).map(
    (row): HealthFinding => ({ check: 'no_primary_key', severity: 'warning', object: `${schema}.${String(row.table_name)}`, detail: 'no primary key' }),
  );

  return [
    { check: 'unused_indexes', findings: unused },
    { check: 'duplicate_indexes', findings: duplicates },
    { check: 'redundant_indexes', findings: redundant },
    { check: 'long_running_transactions', findings: longTransactions },
    { check: 'no_primary_key', findings: noPrimaryKey },
  ];
}
