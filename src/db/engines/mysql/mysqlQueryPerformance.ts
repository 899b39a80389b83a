import { DriverFailure } from '../../driverFailure.js';
import { type Database, type Explanation, valuesOf } from '../../database.js';
import { type IndexAdvice, type IndexAdviceOptions, PERFORMANCE, type SlowQueries, type SlowQueriesOptions, slowStatement } from '../../analysis/performanceFindings.js';
import { ADVICE_READ, adviseScans, aliasedTable, type Scan } from '../../analysis/scanAdvice.js';
import { namedRows } from '../../catalog/catalogRead.js';

type Actual = NonNullable<Explanation['actual']>;

/** How this server analyses a statement: MariaDB's ANALYZE FORMAT=JSON, or MySQL's EXPLAIN ANALYZE (8.0.18 and later). */
export function mysqlAnalyzer(version: string): { prefix: string; actual(rows: unknown[][]): Actual } {
  if (version.includes('MariaDB')) {
    return {
      prefix: 'ANALYZE FORMAT=JSON',
      // MariaDB reports rows per table read, not the rows the statement returned.
      actual(rows) {
        const time = (JSON.parse(String(rows[0]?.[0])) as { query_block?: { r_total_time_ms?: unknown } }).query_block?.r_total_time_ms;
        return { execution_ms: typeof time === 'number' ? Number(time.toFixed(3)) : null, rows: null };
      },
    };
  }
  const [major = 0, minor = 0, patch = 0] = version.split(/[.-]/).map(Number);
  if (major * 10_000 + minor * 100 + patch < 80_018) throw new DriverFailure('unsupported', 'EXPLAIN ANALYZE needs MySQL 8.0.18 or later');
  return {
    prefix: 'EXPLAIN ANALYZE',
    // The top node's "(actual time=first..last rows=N loops=L)": its last row came at `last` ms.
    actual(rows) {
      const top = /\(actual time=[\d.]+\.\.([\d.]+) rows=([\d.]+) loops=(\d+)\)/.exec(String(rows[0]?.[0]));
      return top ? { execution_ms: Number(top[1]), rows: Math.round(Number(top[2]) * Number(top[3])) } : { execution_ms: null, rows: null };
    },
  };
}

const OFF =
  'performance_schema is OFF on this server, so it keeps no statement statistics. To enable it, set performance_schema=ON under [mysqld] in the server’s option file and restart the server.';

/** performance_schema's statement digests of the connection's database, when performance_schema is on. */
export async function mysqlSlowQueries(db: Database, options: SlowQueriesOptions): Promise<SlowQueries> {
  const read = (sql: string, params: unknown[]) => db.read(sql, { ...ADVICE_READ, params, signal: options.signal }).then(namedRows);
  const [{ recording } = {}] = await read('SELECT @@performance_schema AS recording', []);
  if (Number(recording) !== 1) return { available: false, statements: [], note: OFF };
  const order = options.orderBy === 'mean' ? 'AVG_TIMER_WAIT' : 'SUM_TIMER_WAIT';
  // Timers count picoseconds. The limit is an integer checked by the tool: MySQL refuses some bound LIMIT types.
  const rows = await read(
    `SELECT COUNT_STAR AS calls, SUM_TIMER_WAIT / 1000000000 AS total_ms, AVG_TIMER_WAIT / 1000000000 AS mean_ms,
            SUM_ROWS_SENT AS row_count, LEFT(DIGEST_TEXT, ?) AS query_text
     FROM performance_schema.events_statements_summary_by_digest
     WHERE SCHEMA_NAME = DATABASE() AND DIGEST_TEXT IS NOT NULL ORDER BY ${order} DESC LIMIT ${Math.trunc(options.limit)}`,
    [PERFORMANCE.queryTextChars],
  );
  return {
    available: true,
    statements: rows.map(slowStatement),
  };
}

type PlanTable = { table_name?: unknown; access_type?: unknown; attached_condition?: unknown; rows?: unknown; rows_examined_per_scan?: unknown };

/** The full scans (`access_type` ALL) anywhere in an EXPLAIN FORMAT=JSON document, with their conditions. */
function fullScans(node: unknown, sql: string, defaultSchema: string): Scan[] {
  if (typeof node !== 'object' || node === null) return [];
  const object = node as Record<string, unknown>;
  const table = object.table as PlanTable | undefined;
  const here: Scan[] = [];
  if (table && table.access_type === 'ALL' && typeof table.table_name === 'string') {
    const { schema, table: name } = aliasedTable(sql, 'mysql', table.table_name);
    const estimate = Number(table.rows ?? table.rows_examined_per_scan);
    here.push({
      schema: schema ?? defaultSchema,
      table: name,
      alias: table.table_name,
      // MariaDB puts a block join's condition beside its table.
      conditions: [table.attached_condition, object.attached_condition].filter((c) => typeof c === 'string').join(' AND '),
      ...(Number.isFinite(estimate) ? { estimatedRows: estimate } : {}),
    });
  }
  return [...here, ...Object.values(object).flatMap((child) => fullScans(child, sql, defaultSchema))];
}

/** The full scans of EXPLAIN FORMAT=JSON, with attached conditions on columns no index starts with. */
export async function mysqlIndexAdvice(db: Database, options: IndexAdviceOptions & { sql: string }): Promise<IndexAdvice> {
  const result = await db.read(`EXPLAIN FORMAT=JSON ${options.sql}`, { ...ADVICE_READ, params: options.params, signal: options.signal });
  const [[document] = []] = valuesOf(result.rows);
  return { suggestions: await adviseScans(db, fullScans(JSON.parse(String(document)), options.sql, options.schema), options.signal) };
}
