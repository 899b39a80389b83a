import { catalogRows } from '../../catalog/catalogRead.js';
import type { Database } from '../../database.js';
import type { TableEscapes } from '../engineModule.js';

/**
 * DuckDB has no triggers and no cascading foreign keys: what escapes is a column drawn from a sequence
 * (its `nextval` default), and a target that is a view.
 */
export async function duckdbTableEscapes(db: Database, table: { schema: string; name: string }, signal: AbortSignal): Promise<TableEscapes> {
  const { rows } = await catalogRows(
    db,
    `SELECT EXISTS (SELECT 1 FROM duckdb_views() WHERE schema_name = $1 AND view_name = $2) AS view,
       EXISTS (SELECT 1 FROM duckdb_columns() WHERE schema_name = $1 AND table_name = $2 AND column_default LIKE '%nextval(%') AS sequence`,
    [table.schema, table.name],
    signal,
  );
  const [row = {}] = rows;
  return { triggers: false, cascades: false, sequence: row.sequence === true, ...(row.view === true ? { notPlain: 'a view' } : {}) };
}
