import type { Database } from '../../database.js';
import { namedRows } from '../../catalog/catalogRead.js';
import type { IndexAdvice, IndexAdviceOptions } from '../../analysis/performanceFindings.js';
import { ADVICE_READ, adviseScans, aliasedTable, conditionText } from '../../analysis/scanAdvice.js';

/** EXPLAIN QUERY PLAN's `SCAN name` (not `SCAN name USING … INDEX`): a full scan of that table. */
const FULL_SCAN = /^SCAN (.+)$/;

/**
 * The tables EXPLAIN QUERY PLAN scans in full, with the columns of the statement's WHERE and ON
 * clauses that no index starts with (SQLite's plan does not show the conditions themselves).
 */
export async function sqliteIndexAdvice(db: Database, options: IndexAdviceOptions & { sql: string }): Promise<IndexAdvice> {
  const result = await db.read(`EXPLAIN QUERY PLAN ${options.sql}`, { ...ADVICE_READ, params: options.params, signal: options.signal });
  const conditions = conditionText(options.sql, 'sqlite');
  // EXPLAIN QUERY PLAN answers (id, parent, notused, detail).
  const scans = namedRows(result).flatMap((row) => {
    const alias = FULL_SCAN.exec(String(row.detail))?.[1];
    if (alias === undefined || alias.includes(' USING ') || alias === 'CONSTANT ROW') return [];
    const { schema, table } = aliasedTable(options.sql, 'sqlite', alias);
    return [{ schema: schema ?? options.schema, table, alias, conditions }];
  });
  return { suggestions: await adviseScans(db, scans, options.signal) };
}
