import { type CatalogRow, catalogRows, numberOrNull, ratio } from '../../catalog/catalogRead.js';
import type { Database } from '../../database.js';
import { type CheckResult, FINDINGS_PER_CHECK, type HealthFinding } from '../../analysis/healthFindings.js';
import { indexShapes, type KeyColumn, overlappingIndexes } from '../../analysis/indexOverlap.js';
import { hasStat1 } from './sqliteStatistics.js';

/** Free pages above this share of the file are reported: VACUUM would give them back. */
const FREELIST_WARNING_SHARE = 0.25;

const QUICK_CHECK = 'SELECT quick_check FROM pragma_quick_check(NULL, ?) LIMIT ?';
const PAGES = 'SELECT (SELECT page_count FROM pragma_page_count) AS page_count, (SELECT freelist_count FROM pragma_freelist_count) AS free_pages';
const FOREIGN_KEY_VIOLATIONS = 'SELECT count(*) AS violations FROM pragma_foreign_key_check(NULL, ?)';
const USER_TABLES = "t.schema = ? AND t.type = 'table' AND t.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'";
const WITHOUT_PRIMARY_KEY = `SELECT t.name AS table_name FROM pragma_table_list AS t WHERE ${USER_TABLES}
  AND NOT EXISTS (SELECT 1 FROM pragma_table_info(t.name, t.schema) WHERE pk > 0) ORDER BY t.name LIMIT ?`;
/** Key columns of every index; partial and expression indexes are kept apart (their kind is their own name). */
const INDEX_COLUMNS = `SELECT t.name AS table_name, il.name AS index_name, il."unique" AS is_unique,
    il.partial OR EXISTS (SELECT 1 FROM pragma_index_xinfo(il.name, t.schema) WHERE key AND cid = -2) AS is_special,
    coalesce(ii.name, '<expression>') || CASE WHEN ii."desc" THEN ' DESC' ELSE '' END || CASE WHEN ii.coll <> 'BINARY' THEN ' COLLATE ' || ii.coll ELSE '' END AS key_part
  FROM pragma_table_list AS t JOIN pragma_index_list(t.name, t.schema) AS il JOIN pragma_index_xinfo(il.name, t.schema) AS ii
  WHERE ${USER_TABLES} AND ii.key ORDER BY t.name, il.name, ii.seqno`;

/** SQLite's checks on the main schema: integrity (quick_check), free pages, foreign keys, primary keys, duplicate indexes, ANALYZE. */
export async function sqliteHealth(db: Database, signal: AbortSignal): Promise<CheckResult[]> {
  const schema = 'main';
  const read = async (sql: string, params: unknown[]) => (await catalogRows(db, sql, params, signal)).rows;
  const problems = (await read(QUICK_CHECK, [schema, FINDINGS_PER_CHECK + 1])).map((row) => String(row.quick_check));
  const integrity = problems.length === 1 && problems[0] === 'ok' ? [] : problems.map((detail): HealthFinding => ({ check: 'quick_check', severity: 'warning', detail }));

  const [{ page_count: pageCount, free_pages: freePages } = {}] = await read(PAGES, []);
  const freeShare = ratio(numberOrNull(freePages), numberOrNull(pageCount));
  const freelist: HealthFinding[] =
    freeShare !== null && freeShare > FREELIST_WARNING_SHARE
      ? [{ check: 'freelist', severity: 'info', detail: `${Number(freePages)} of ${Number(pageCount)} pages are free (${Math.round(freeShare * 100)}%); VACUUM would return them to the file system` }]
      : [];

  const violations = Number((await read(FOREIGN_KEY_VIOLATIONS, [schema]))[0]?.violations);
  const foreignKeys: HealthFinding[] =
    violations > 0 ? [{ check: 'foreign_key_check', severity: 'warning', detail: `${violations} row(s) reference a missing parent row` }] : [];

  const noPrimaryKey = (await read(WITHOUT_PRIMARY_KEY, [schema, FINDINGS_PER_CHECK + 1])).map(
    (row): HealthFinding => ({ check: 'no_primary_key', severity: 'info', object: `${schema}.${String(row.table_name)}`, detail: 'no primary key: rows are identified by rowid only' }),
  );

  const { duplicates, redundant } = overlappingIndexes(indexShapes(keyColumns(schema, await read(INDEX_COLUMNS, [schema]))));

  const analyzed = await hasStat1(db, schema, signal);
  const neverAnalyzed: HealthFinding[] = analyzed
    ? []
    : [{ check: 'never_analyzed', severity: 'info', object: schema, detail: 'no sqlite_stat1: ANALYZE never ran, so the planner has no statistics' }];

  return [
    { check: 'quick_check', findings: integrity },
    { check: 'freelist', findings: freelist },
    { check: 'foreign_key_check', findings: foreignKeys },
    { check: 'no_primary_key', findings: noPrimaryKey },
    { check: 'duplicate_indexes', findings: duplicates },
    { check: 'redundant_indexes', findings: redundant },
    { check: 'never_analyzed', findings: neverAnalyzed },
  ];
}

/** Rows of INDEX_COLUMNS (table, index, unique, partial or on expressions, key part) as the overlap checks read them. */
const keyColumns = (schema: string, rows: CatalogRow[]): KeyColumn[] =>
  rows.map((row) => ({
    schema,
    table: String(row.table_name),
    name: String(row.index_name),
    unique: Number(row.is_unique) === 1,
    kind: Number(row.is_special) ? `special:${String(row.index_name)}` : 'btree',
    leadingPrefixServes: true,
    column: String(row.key_part),
  }));
