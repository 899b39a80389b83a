import { catalogRows, numberOrNull } from '../../catalog/catalogRead.js';
import type { Database } from '../../database.js';
import type { DatabaseStatistics, EngineTableStatistics, TableStatisticsRequest } from '../../catalog/statistics.js';
import { SQL_DIALECTS } from '../../../sql/dialects.js';
import { DATABASES } from '../../../core/contract.js';

const { quoteIdent } = SQL_DIALECTS.sqlite;

/** The schema's tables (not views, not SQLite's own), by name; `$table` narrows to one. */
const TABLES = `SELECT name AS table_name FROM pragma_table_list WHERE schema = ? AND type = 'table'
  AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND (? IS NULL OR name = ?) ORDER BY name LIMIT ?`;
const HAS_STAT1 = "SELECT count(*) AS found FROM pragma_table_list WHERE schema = ? AND name = 'sqlite_stat1'";
const HAS_DBSTAT = "SELECT sqlite_compileoption_used('ENABLE_DBSTAT_VTAB') AS found";
/** Pages of each table and of its indexes, from the dbstat virtual table (it reads every page of them). */
const SIZES = `SELECT t.value AS table_name,
    (SELECT sum(pgsize) FROM dbstat WHERE schema = s.name AND name = t.value AND aggregate = 1) AS table_bytes,
    (SELECT coalesce(sum(d.pgsize), 0) FROM pragma_index_list(t.value, s.name) AS i
       JOIN dbstat AS d ON d.schema = s.name AND d.name = i.name AND d.aggregate = 1) AS index_bytes
  FROM (SELECT ? AS name) AS s, json_each(?) AS t`;

/** The rows of a catalog read, by column name. */
const read = async (db: Database, sql: string, params: unknown[], signal: AbortSignal) => (await catalogRows(db, sql, params, signal)).rows;

/** Whether the schema has sqlite_stat1, the table ANALYZE writes. */
export async function hasStat1(db: Database, schema: string, signal: AbortSignal): Promise<boolean> {
  return Number((await read(db, HAS_STAT1, [schema], signal))[0]?.found) > 0;
}

/** Each table's row count as sqlite_stat1 has it (its first number, as of the last ANALYZE); undefined without sqlite_stat1. */
async function stat1Estimates(db: Database, schema: string, signal: AbortSignal): Promise<Map<string, number> | undefined> {
  if (!(await hasStat1(db, schema, signal))) return undefined;
  const rows = new Map<string, number>();
  for (const { tbl, stat } of await read(db, `SELECT tbl, stat FROM ${quoteIdent(schema)}.sqlite_stat1`, [], signal)) {
    const count = Number.parseInt(String(stat), 10);
    if (Number.isFinite(count)) rows.set(String(tbl), Math.max(count, rows.get(String(tbl)) ?? 0));
  }
  return rows;
}

/** Each table's bytes and its indexes' bytes, by table. */
type Sizes = Map<string, [number | null, number | null]>;

/** The tables' sizes from dbstat; undefined when this SQLite has no dbstat. */
async function tableSizes(db: Database, schema: string, names: string[], signal: AbortSignal): Promise<Sizes | undefined> {
  if (Number((await read(db, HAS_DBSTAT, [], signal))[0]?.found) !== 1) return undefined;
  const sizes: Sizes = new Map();
  for (const row of await read(db, SIZES, [schema, JSON.stringify(names)], signal)) {
    sizes.set(String(row.table_name), [numberOrNull(row.table_bytes), numberOrNull(row.index_bytes)]);
  }
  return sizes;
}

/**
 * The tables' exact row counts, within `budgetMs` in all, the smallest tables first so that the budget
 * counts as many as it can; a table not counted in time is left out.
 */
async function exactCounts(
  db: Database,
  { schema, names, sizes }: { schema: string; names: string[]; sizes: Sizes | undefined },
  budgetMs: number,
  signal: AbortSignal,
): Promise<Map<string, number>> {
  if (!db.countRowsWithin || names.length === 0) return new Map();
  const bytes = (name: string) => sizes?.get(name)?.[0] ?? Number.POSITIVE_INFINITY;
  const order = [...names].sort((a, b) => bytes(a) - bytes(b) || 0);
  const counts = await db.countRowsWithin(schema, order, budgetMs, signal);
  const counted = new Map<string, number>();
  order.forEach((name, i) => {
    const count = counts[i];
    if (typeof count === 'number') counted.set(name, count);
  });
  return counted;
}

/** Why some tables have no exact count, and what they have instead. */
function uncountedNotes(uncounted: string[], estimates: Map<string, number> | undefined, budgetMs: number): string[] {
  const estimated = uncounted.filter((name) => estimates?.has(name)).length;
  const none = uncounted.length - estimated;
  return [
    ...(estimated > 0 ? [`${estimated} table(s) not counted within the ${budgetMs} ms budget: their estimated_rows is sqlite_stat1's estimate`] : []),
    ...(none > 0 ? [`${none} table(s) not counted within the ${budgetMs} ms budget and never analyzed: their estimated_rows is null`] : []),
  ];
}

/**
 * Rows counted exactly while that takes at most `budgetMs` for the whole call (the query process stops
 * a count past it), else sqlite_stat1's estimate (`row_count_source` says which); sizes from dbstat.
 */
export async function sqliteTableStatistics(
  db: Database,
  { schema, table, limit }: TableStatisticsRequest,
  signal: AbortSignal,
  budgetMs: number = DATABASES.sqliteExactCountBudgetMs,
): Promise<EngineTableStatistics> {
  const names = (await read(db, TABLES, [schema, table ?? null, table ?? null, limit + 1], signal)).map((row) => String(row.table_name));
  const estimates = await stat1Estimates(db, schema, signal);
  const sizes = await tableSizes(db, schema, names, signal);
  const counts = await exactCounts(db, { schema, names, sizes }, budgetMs, signal);
  const notes = uncountedNotes(names.filter((name) => !counts.has(name)), estimates, budgetMs);
  if (!sizes) notes.push('sizes are null: this SQLite has no dbstat virtual table');
  const tables = names.map((name) => {
    const [tableBytes = null, indexBytes = null] = sizes?.get(name) ?? [];
    const counted = counts.get(name);
    const estimate = estimates?.get(name);
    return {
      table: name,
      estimated_rows: counted ?? estimate ?? null,
      row_count_source: counted !== undefined ? ('count' as const) : estimate !== undefined ? ('sqlite_stat1' as const) : null,
      total_bytes: tableBytes === null || indexBytes === null ? null : tableBytes + indexBytes,
      table_bytes: tableBytes,
      index_bytes: indexBytes,
      last_analyze: null,
      last_autoanalyze: null,
      last_vacuum: null,
      last_autovacuum: null,
      dead_tuples: null,
      seq_scans: null,
      index_scans: null,
      auto_increment: null,
      update_time: null,
    };
  });
  return { tables, notes };
}

const DATABASE = `SELECT sqlite_version() AS version,
    (SELECT page_size FROM pragma_page_size) AS page_size, (SELECT page_count FROM pragma_page_count) AS page_count,
    (SELECT freelist_count FROM pragma_freelist_count) AS freelist_count, (SELECT journal_mode FROM pragma_journal_mode) AS journal_mode,
    (SELECT count(*) FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\') AS table_count,
    (SELECT count(*) FROM pragma_table_list AS t JOIN pragma_index_list(t.name, t.schema) WHERE t.schema = 'main' AND t.type = 'table') AS index_count`;

/** The main database file: its pages (size = page_size × page_count), journal mode and SQLite's version. */
export async function sqliteDatabaseStatistics(db: Database, signal: AbortSignal): Promise<DatabaseStatistics> {
  const [database = ''] = await db.listDatabases(signal);
  const [row = {}] = await read(db, DATABASE, [], signal);
  const pageSize = numberOrNull(row.page_size);
  const pageCount = numberOrNull(row.page_count);
  return {
    database,
    engine_version: String(row.version),
    size_bytes: pageSize !== null && pageCount !== null ? pageSize * pageCount : null,
    table_count: Number(row.table_count),
    index_count: Number(row.index_count),
    cache_hit_ratio: null,
    connections: null,
    max_connections: null,
    uptime_seconds: null,
    transactions_committed: null,
    transactions_rolled_back: null,
    deadlocks: null,
    page_size: pageSize,
    page_count: pageCount,
    freelist_count: numberOrNull(row.freelist_count),
    journal_mode: String(row.journal_mode),
  };
}
