import { catalogRows } from '../../catalog/catalogRead.js';
import type { Database } from '../../database.js';
import { SQL_DIALECTS } from '../../../sql/dialects.js';
import type { TableEscapes } from '../engineModule.js';

const CHANGING_ACTIONS = "('CASCADE', 'SET NULL', 'SET DEFAULT')";

/**
 * A table's triggers (a view's INSTEAD OF ones too) and the foreign keys of the schema's tables that
 * cascade from it. An AUTOINCREMENT counter is no escape: `sqlite_sequence` is a table, rolled back too.
 */
export async function sqliteTableEscapes(db: Database, table: { schema: string; name: string }, signal: AbortSignal): Promise<TableEscapes> {
  const master = `${SQL_DIALECTS.sqlite.quoteIdent(table.schema)}.sqlite_master`;
  const { rows } = await catalogRows(
    db,
    `SELECT (SELECT type FROM ${master} WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE) AS kind,
       EXISTS (SELECT 1 FROM ${master} WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE) AS triggers,
       EXISTS (SELECT 1 FROM ${master} m, pragma_foreign_key_list(m.name, ?) f WHERE m.type = 'table' AND f."table" = ? COLLATE NOCASE
         AND (f.on_delete IN ${CHANGING_ACTIONS} OR f.on_update IN ${CHANGING_ACTIONS})) AS cascades`,
    [table.name, table.name, table.schema, table.name],
    signal,
  );
  const [row = {}] = rows;
  return { triggers: Number(row.triggers) === 1, cascades: Number(row.cascades) === 1, sequence: false, ...(row.kind === 'view' ? { notPlain: 'a view' } : {}) };
}
