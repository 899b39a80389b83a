import { type Database, type Explanation, valuesOf } from '../../database.js';
import { DriverFailure } from '../../driverFailure.js';
import { type IndexAdvice, type IndexAdviceOptions, PERFORMANCE, type SlowQueries, type SlowQueriesOptions, slowStatement } from '../../analysis/performanceFindings.js';
import { ADVICE_READ, adviseScans, type Scan } from '../../analysis/scanAdvice.js';
import { namedRows } from '../../catalog/catalogRead.js';
import { SQL_DIALECTS } from '../../../sql/dialects.js';

/** What EXPLAIN (ANALYZE) measured: its "Execution Time" line, and the top node's actual rows times its loops. */
export function postgresActuals(rows: unknown[][]): NonNullable<Explanation['actual']> {
  const lines = rows.map((r) => String(r[0]));
  const time = lines.map((l) => /^Execution Time: ([\d.]+) ms$/.exec(l)).find(Boolean);
  const top = /\(actual (?:time=[\d.]+\.\.[\d.]+ )?rows=([\d.]+) loops=(\d+)\)/.exec(lines[0] ?? '');
  return { execution_ms: time ? Number(time[1]) : null, rows: top ? Math.round(Number(top[1]) * Number(top[2])) : null };
}

const NOT_INSTALLED =
  'pg_stat_statements is not installed in this database. To enable it, add pg_stat_statements to shared_preload_libraries in postgresql.conf, restart the server, then run CREATE EXTENSION pg_stat_statements; in this database.';
const NOT_LOADED =
  'pg_stat_statements is installed but the server did not load it. Add pg_stat_statements to shared_preload_libraries in postgresql.conf and restart the server.';
/** SQLSTATE 55000 (object not in prerequisite state): the extension's functions without its library loaded. */
const NOT_IN_PREREQUISITE_STATE = '55000';

/** pg_stat_statements of the connection's database, when the extension is installed there and loaded. */
export async function postgresSlowQueries(db: Database, options: SlowQueriesOptions): Promise<SlowQueries> {
  const read = (sql: string, params: unknown[]) => db.read(sql, { ...ADVICE_READ, params, signal: options.signal }).then(namedRows);
  const [extension] = await read(
    "SELECT n.nspname, e.extversion FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_stat_statements'",
    [],
  );
  if (!extension) return { available: false, statements: [], note: NOT_INSTALLED };
  const [major = 0, minor = 0] = String(extension.extversion).split('.').map(Number);
  // 1.8 (PostgreSQL 13) split planning from execution time.
  const time = major > 1 || minor >= 8 ? 'exec_time' : 'time';
  const order = options.orderBy === 'mean' ? `mean_${time}` : `total_${time}`;
  try {
    const rows = await read(
      `SELECT calls, total_${time} AS total_ms, mean_${time} AS mean_ms, rows AS row_count, left(query, $1) AS query_text
       FROM ${SQL_DIALECTS.postgres.quoteIdent(String(extension.nspname))}.pg_stat_statements
       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       ORDER BY ${order} DESC NULLS LAST LIMIT $2`,
      [PERFORMANCE.queryTextChars, options.limit],
    );
    return {
      available: true,
      statements: rows.map(slowStatement),
    };
  } catch (error) {
    if (error instanceof DriverFailure && error.engineCode === NOT_IN_PREREQUISITE_STATE) return { available: false, statements: [], note: NOT_LOADED };
    throw error;
  }
}

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

/** Every Seq Scan of the plan, with its own filter and the join conditions above it. */
function seqScans(node: PlanNode, inherited: string[], defaultSchema: string): Scan[] {
  const joins = ['Hash Cond', 'Merge Cond', 'Join Filter'].map((key) => node[key]).filter((c): c is string => typeof c === 'string');
  const conditions = [...inherited, ...joins];
  const here: Scan[] =
    node['Node Type'] === 'Seq Scan' && typeof node['Relation Name'] === 'string'
      ? [
          {
            schema: typeof node.Schema === 'string' ? node.Schema : defaultSchema,
            table: node['Relation Name'],
            alias: typeof node.Alias === 'string' ? node.Alias : node['Relation Name'],
            conditions: [typeof node.Filter === 'string' ? node.Filter : '', ...conditions].join(' AND '),
          },
        ]
      : [];
  return [...here, ...(node.Plans ?? []).flatMap((child) => seqScans(child, conditions, defaultSchema))];
}

/**
 * For a query: the sequential scans of its plan (EXPLAIN, FORMAT JSON, VERBOSE, so every column is
 * qualified); without one: the tables the statistics show read mostly by sequential scans.
 */
export async function postgresIndexAdvice(db: Database, options: IndexAdviceOptions): Promise<IndexAdvice> {
  if (options.sql === undefined) return scannedTables(db, options);
  const result = await db.read(`EXPLAIN (FORMAT JSON, VERBOSE) ${options.sql}`, { ...ADVICE_READ, params: options.params, signal: options.signal });
  const [[cell] = []] = valuesOf(result.rows);
  const plan = (typeof cell === 'string' ? JSON.parse(cell) : cell) as { Plan: PlanNode }[];
  return { suggestions: await adviseScans(db, seqScans(plan[0]?.Plan ?? {}, [], options.schema), options.signal) };
}

async function scannedTables(db: Database, options: IndexAdviceOptions): Promise<IndexAdvice> {
  const result = await db.read(
    `SELECT schemaname, relname, n_live_tup, seq_scan, seq_tup_read, coalesce(idx_scan, 0) AS idx_scan FROM pg_stat_user_tables
     WHERE schemaname = $1 AND n_live_tup >= $2 AND seq_scan > coalesce(idx_scan, 0)
     ORDER BY seq_tup_read DESC LIMIT $3`,
    { ...ADVICE_READ, params: [options.schema, PERFORMANCE.indexAdviceMinRows, PERFORMANCE.workloadTables], signal: options.signal },
  );
  return {
    suggestions: [],
    scanned_tables: namedRows(result).map((row) => ({
      schema: String(row.schemaname),
      table: String(row.relname),
      rows: Number(row.n_live_tup),
      seq_scan: Number(row.seq_scan),
      seq_tup_read: Number(row.seq_tup_read),
      idx_scan: Number(row.idx_scan),
    })),
    note: 'Tables read mostly by sequential scans since the statistics were reset. Call index_advice with the sql of the queries that read them for the columns to index.',
  };
}
