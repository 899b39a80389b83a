import { catalogRows } from '../../catalog/catalogRead.js';
import type { Database } from '../../database.js';
import type { TableEscapes } from '../engineModule.js';

const CHANGING_ACTIONS = "('CASCADE', 'SET NULL', 'SET DEFAULT')";

/**
 * A table's triggers, the foreign keys that cascade from it, an AUTO_INCREMENT column (its counter is
 * not rolled back), and a table whose storage engine is not InnoDB (a MyISAM table keeps what a
 * rolled-back transaction wrote) or that is a view.
 */
export async function mysqlTableEscapes(db: Database, table: { schema: string; name: string }, signal: AbortSignal): Promise<TableEscapes> {
  const { rows } = await catalogRows(
    db,
    `SELECT t.table_type AS kind, t.engine AS storage,
       EXISTS (SELECT 1 FROM information_schema.triggers g WHERE g.event_object_schema = t.table_schema AND g.event_object_table = t.table_name) AS triggers,
       EXISTS (SELECT 1 FROM information_schema.referential_constraints r WHERE r.unique_constraint_schema = t.table_schema
         AND r.referenced_table_name = t.table_name AND (r.delete_rule IN ${CHANGING_ACTIONS} OR r.update_rule IN ${CHANGING_ACTIONS})) AS cascades,
       EXISTS (SELECT 1 FROM information_schema.columns c WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name
         AND c.extra LIKE '%auto_increment%') AS sequence
     FROM information_schema.tables t WHERE t.table_schema = ? AND t.table_name = ?`,
    [table.schema, table.name],
    signal,
  );
  const [row = {}] = rows;
  const storage = String(row.storage ?? '');
  const notPlain = row.kind === 'VIEW' ? 'a view' : storage.toUpperCase() === 'INNODB' ? undefined : `a ${storage} table, which does not roll back`;
  return { triggers: Number(row.triggers) === 1, cascades: Number(row.cascades) === 1, sequence: Number(row.sequence) === 1, ...(notPlain ? { notPlain } : {}) };
}
