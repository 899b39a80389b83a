import { catalogRows } from '../../catalog/catalogRead.js';
import type { Database } from '../../database.js';
import type { TableEscapes } from '../engineModule.js';

const RELATION_NAMES: Record<string, string> = { v: 'a view', m: 'a materialized view', f: 'a foreign table' };
/** Foreign-key actions that change the referencing rows: CASCADE, SET NULL, SET DEFAULT. */
const CHANGING_ACTIONS = "('c', 'n', 'd')";

/**
 * A table's triggers (not the internal ones that enforce foreign keys) and rules, the foreign keys that
 * cascade from it, and its columns drawn from a sequence (a `nextval` default or an identity).
 */
export async function postgresTableEscapes(db: Database, table: { schema: string; name: string }, signal: AbortSignal): Promise<TableEscapes> {
  const { rows } = await catalogRows(
    db,
    `SELECT c.relkind::text AS kind,
       EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND NOT t.tgisinternal)
         OR EXISTS (SELECT 1 FROM pg_rewrite r WHERE r.ev_class = c.oid AND r.rulename <> '_RETURN') AS triggers,
       EXISTS (SELECT 1 FROM pg_constraint f WHERE f.confrelid = c.oid AND f.contype = 'f'
         AND (f.confdeltype IN ${CHANGING_ACTIONS} OR f.confupdtype IN ${CHANGING_ACTIONS})) AS cascades,
       EXISTS (SELECT 1 FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
         WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
         AND (a.attidentity <> '' OR pg_get_expr(d.adbin, d.adrelid) LIKE '%nextval(%')) AS sequence
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`,
    [table.schema, table.name],
    signal,
  );
  const [row = {}] = rows;
  const notPlain = RELATION_NAMES[String(row.kind)];
  return { triggers: row.triggers === true, cascades: row.cascades === true, sequence: row.sequence === true, ...(notPlain ? { notPlain } : {}) };
}
