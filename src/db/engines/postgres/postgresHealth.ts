import { type CatalogRow, catalogRows, numberOrNull } from '../../catalog/catalogRead.js';
import type { Database } from '../../database.js';
import { type CheckResult, FINDINGS_PER_CHECK, type HealthFinding, LONG_RUNNING_SECONDS } from '../../analysis/healthFindings.js';
import { overlappingIndexes } from '../../analysis/indexOverlap.js';
import { cacheHitRatio, USER_SCHEMA } from './postgresStatistics.js';

/**
 * Estimated bloat, from pg_stat_user_tables alone (no pgstattuple): a table is reported when at least
 * BLOAT_MIN_DEAD_ROWS of its rows are dead and they are more than BLOAT_DEAD_SHARE of all its rows.
 */
const BLOAT_MIN_DEAD_ROWS = 1_000;
const BLOAT_DEAD_SHARE = 0.2;
/** A cache hit ratio below this is reported, once at least CACHE_MIN_BLOCKS blocks were asked for. */
const CACHE_HIT_WARNING = 0.95;
const CACHE_MIN_BLOCKS = 10_000;
/** Indexes compared for duplicates at most. */
const INDEXES_COMPARED = 10_000;

const LIMIT = FINDINGS_PER_CHECK + 1;

const BLOAT = `SELECT schemaname AS schema_name, relname AS table_name, n_live_tup AS live, n_dead_tup AS dead FROM pg_stat_user_tables
  WHERE n_dead_tup >= $1 AND n_dead_tup > $2::float8 * (n_live_tup + n_dead_tup) ORDER BY n_dead_tup DESC LIMIT $3`;
/** Never scanned since the statistics were reset; unique indexes and those behind constraints enforce something, so they stay. */
const UNUSED_INDEXES = `SELECT s.schemaname AS schema_name, s.relname AS table_name, s.indexrelname AS index_name,
    pg_relation_size(s.indexrelid) AS size
  FROM pg_stat_user_indexes s JOIN pg_index i ON i.indexrelid = s.indexrelid
  WHERE s.idx_scan = 0 AND NOT i.indisunique AND NOT i.indisprimary
    AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = s.indexrelid)
  ORDER BY pg_relation_size(s.indexrelid) DESC, s.schemaname COLLATE "C", s.indexrelname COLLATE "C" LIMIT $1`;
/** Key columns or expressions of each index; its access method and predicate are its kind. */
const INDEX_SHAPES = `SELECT n.nspname AS schema_name, t.relname AS table_name, ic.relname AS index_name, ix.indisunique AS is_unique,
    am.amname AS method, coalesce(pg_get_expr(ix.indpred, ix.indrelid), '') AS predicate,
    ARRAY(SELECT pg_get_indexdef(ix.indexrelid, k, true) FROM generate_series(1, ix.indnkeyatts::int) AS k ORDER BY k) AS key_parts
  FROM pg_index ix JOIN pg_class ic ON ic.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid
  JOIN pg_namespace n ON n.oid = t.relnamespace JOIN pg_am am ON am.oid = ic.relam
  WHERE ${USER_SCHEMA} ORDER BY n.nspname COLLATE "C", t.relname COLLATE "C", ic.relname COLLATE "C"`;
const CACHE = 'SELECT blks_hit AS hits, blks_read AS reads FROM pg_stat_database WHERE datname = current_database()';
/** Sessions of this database busy, or idle inside a transaction, for too long: never their statement text. */
const LONG_RUNNING = `SELECT pid, state, floor(extract(epoch FROM now() - coalesce(xact_start, query_start)))::bigint AS seconds,
    wait_event_type, wait_event, application_name
  FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
    AND state IN ('active', 'idle in transaction', 'idle in transaction (aborted)')
    AND coalesce(xact_start, query_start) < now() - make_interval(secs => $1)
  ORDER BY seconds DESC LIMIT $2`;
const NEVER_ANALYZED = `SELECT schemaname AS schema_name, relname AS table_name FROM pg_stat_user_tables WHERE last_analyze IS NULL AND last_autoanalyze IS NULL
  ORDER BY schemaname COLLATE "C", relname COLLATE "C" LIMIT $1`;
const WITHOUT_PRIMARY_KEY = `SELECT n.nspname AS schema_name, c.relname AS table_name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND ${USER_SCHEMA}
    AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'p')
  ORDER BY n.nspname COLLATE "C", c.relname COLLATE "C" LIMIT $1`;

const mib = (bytes: unknown) => `${(Number(bytes) / 1_048_576).toFixed(1)} MiB`;

/** One catalogue read of a health check. */
type Read = (sql: string, params: unknown[], maxRows?: number) => Promise<CatalogRow[]>;

/** `schema.table` of a row that names them. */
const tableOf = (row: CatalogRow) => `${String(row.schema_name)}.${String(row.table_name)}`;

export async function postgresHealth(db: Database, signal: AbortSignal): Promise<CheckResult[]> {
  const read: Read = async (sql, params, maxRows) => (await catalogRows(db, sql, params, signal, maxRows)).rows;

  const bloat = (await read(BLOAT, [BLOAT_MIN_DEAD_ROWS, BLOAT_DEAD_SHARE, LIMIT])).map(
    (row): HealthFinding => ({
      check: 'table_bloat',
      severity: 'warning',
      object: tableOf(row),
      detail: `${Number(row.dead)} dead and ${Number(row.live)} live rows (estimated); VACUUM reclaims the space for reuse`,
    }),
  );

  const unused = (await read(UNUSED_INDEXES, [LIMIT])).map(
    (row): HealthFinding => ({
      check: 'unused_indexes',
      severity: 'info',
      object: `${tableOf(row)}.${String(row.index_name)}`,
      detail: `never scanned since the statistics were reset; ${mib(row.size)}`,
    }),
  );

  const { duplicates, redundant } = await indexOverlaps(read);
  const cache = await cacheFindings(read);

  const longRunning = (await read(LONG_RUNNING, [LONG_RUNNING_SECONDS, LIMIT])).map(
    ({ pid, state, seconds, wait_event_type: waitType, wait_event: waitEvent, application_name: application }): HealthFinding => ({
      check: 'long_running_sessions',
      severity: 'warning',
      object: `pid ${Number(pid)}`,
      detail: `${String(state)} for ${Number(seconds)} s${waitEvent ? `, waiting on ${String(waitType)}:${String(waitEvent)}` : ''}${application ? `, application ${JSON.stringify(application)}` : ''}`,
    }),
  );

  const neverAnalyzed = (await read(NEVER_ANALYZED, [LIMIT])).map(
    (row): HealthFinding => ({
      check: 'never_analyzed',
      severity: 'info',
      object: tableOf(row),
      detail: 'never analyzed: the planner guesses its row counts',
    }),
  );

  const noPrimaryKey = (await read(WITHOUT_PRIMARY_KEY, [LIMIT])).map(
    (row): HealthFinding => ({ check: 'no_primary_key', severity: 'warning', object: tableOf(row), detail: 'no primary key' }),
  );

  return [
    { check: 'table_bloat', findings: bloat },
    { check: 'unused_indexes', findings: unused },
    { check: 'duplicate_indexes', findings: duplicates },
    { check: 'redundant_indexes', findings: redundant },
    { check: 'cache_hit_ratio', findings: cache },
    { check: 'long_running_sessions', findings: longRunning },
    { check: 'never_analyzed', findings: neverAnalyzed },
    { check: 'no_primary_key', findings: noPrimaryKey },
  ];
}

/** Indexes that repeat another, or that another's leading columns serve. */
async function indexOverlaps(read: Read) {
  const shapes = await read(INDEX_SHAPES, [], INDEXES_COMPARED);
  return overlappingIndexes(
    shapes.map((row) => ({
      schema: String(row.schema_name),
      table: String(row.table_name),
      name: String(row.index_name),
      unique: row.is_unique === true,
      columns: (row.key_parts as unknown[]).map(String),
      kind: `${String(row.method)} ${String(row.predicate)}`,
      leadingPrefixServes: row.method === 'btree',
    })),
  );
}

/** A warning when too few block reads were found in shared buffers, once enough were asked for. */
async function cacheFindings(read: Read): Promise<HealthFinding[]> {
  const [{ hits, reads } = {}] = await read(CACHE, []);
  const ratio = cacheHitRatio(numberOrNull(hits), numberOrNull(reads));
  const asked = Number(hits) + Number(reads);
  return ratio !== null && asked >= CACHE_MIN_BLOCKS && ratio < CACHE_HIT_WARNING
    ? [{ check: 'cache_hit_ratio', severity: 'warning', detail: `${ratio} of ${asked} block reads were found in shared buffers` }]
    : [];
}
