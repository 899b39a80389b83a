import { catalogRead, numberOrNull } from '../../catalog/catalogRead.js';
import type { Database } from '../../database.js';
import type { DatabaseStatistics, EngineTableStatistics, TableStatisticsRequest } from '../../catalog/statistics.js';
import { SQL_DIALECTS } from '../../../sql/dialects.js';
import { DATABASES } from '../../../core/contract.js';

const { quoteIdent } = SQL_DIALECTS.sqlite;

/** The schema's tables (not views, not SQLite's own), by name; `$table` narrows to one. */
const TABLES = `SELECT name FROM pragma_table_list WHERE schema = ? AND type = 'table'
  AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND (? IS NULL OR name = ?) ORDER BY name LIMIT ?`;
const HAS_STAT1 = "SELECT count(*) FROM pragma_table_list WHERE schema = ? AND name = 'sqlite_stat1'";
const HAS_DBSTAT = "SELECT sqlite_compileoption_used('ENABLE_DBSTAT_VTAB')";
/** Pages of each table and of its indexes, from the dbstat virtual table (it reads every page of them). */
const SIZES = `SELECT t.value,
    (SELECT sum(pgsize) FROM dbstat WHERE schema = s.name AND name = t.value AND aggregate = 1),
    (SELECT coalesce(sum(d.pgsize), 0) FROM pragma_index_list(t.value, s.name) AS i
       JOIN dbstat AS d ON d.schema = s.name AND d.name = i.name AND d.aggregate = 1)
  FROM (SELECT ? AS name) AS s, json_each(?) AS t`;

/** Whether the schema has sqlite_stat1, the table ANALYZE writes. */
export async function hasStat1(db: Database, schema: string, signal: AbortSignal): Promise<boolean> {
  return Number((await catalogRead(db, HAS_STAT1, [schema], signal))[0]?.[0]) > 0;
}

/** Each table's row count as sqlite_stat1 has it (its first number, as of the last ANALYZE); undefined without sqlite_stat1. */
async function stat1Estimates(db: Database, schema: string, signal: AbortSignal): Promise<Map<string, number> | undefined> {
  if (!(await hasStat1(db, schema, signal))) return undefined;
  const rows = new Map<string, number>();
  for (const [tbl, stat] of await catalogRead(db, `SELECT tbl, stat FROM ${quoteIdent(schema)}.sqlite_stat1`, [], signal)) {
    const count = Number.parseInt(String(stat), 10);
    if (Number.isFinite(count)) rows.set(String(tbl), Math.max(count, rows.get(String(tbl)) ?? 0));
  }
  return rows;
}

/** Each table's bytes and its indexes' bytes, by table. */
type Sizes = Map<string, [number | null, number | null]>;

/** The tables' sizes from dbstat; undefined when this SQLite has no dbstat. */
async function tableSizes(db: Database, schema: string, names: string[], signal: AbortSignal): Promise<Sizes | undefined> {
  if (Number((await catalogRead(db, HAS_DBSTAT, [], signal))[0]?.[0]) !== 1) return undefined;
  const sizes: Sizes = new Map();
  for (const [name, tableBytes, indexBytes] of await catalogRead(db, SIZES, [schema, JSON.stringify(names)], signal)) {
    sizes.set(String(name), [numberOrNull(tableBytes), numberOrNull(indexBytes)]);
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
  const names = (await catalogRead(db, TABLES, [schema, table ?? null, table ?? null, limit + 1], signal)).map((r) => String(r[0]));
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

const DATABASE = `SELECT sqlite_version(),
    (SELECT page_size FROM pragma_page_size), (SELECT page_count FROM pragma_page_count),
    (SELECT freelist_count FROM pragma_freelist_count), (SELECT journal_mode FROM pragma_journal_mode),
    (SELECT count(*) FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'),
    (SELECT count(*) FROM pragma_table_list AS t JOIN pragma_index_list(t.name, t.schema) WHERE t.schema = 'main' AND t.type = 'table')`;

/** The main database file: its pages (size = page_size × page_count), journal mode and SQLite's version. */
export async function sqliteDatabaseStatistics(db: Database, signal: AbortSignal): Promise<DatabaseStatistics> {
  const [database = ''] = await db.listDatabases(signal);
  const [[version, pageSize, pageCount, freelist, journalMode, tables, indexes] = []] = await catalogRead(db, DATABASE, [], signal);
  const size = numberOrNull(pageSize) !== null && numberOrNull(pageCount) !== null ? Number(pageSize) * Number(pageCount) : null;
  return {
    database,
    engine_version: String(version),
    size_bytes: size,
    table_count: Number(tables),
    index_count: Number(indexes),
    cache_hit_ratio: null,
    connections: null,
    max_connections: null,
    uptime_seconds: null,
    transactions_committed: null,
    transactions_rolled_back: null,
    deadlocks: null,
    page_size: numberOrNull(pageSize),
    page_count: numberOrNull(pageCount),
    freelist_count: numberOrNull(freelist),
    journal_mode: String(journalMode),
  };
}
