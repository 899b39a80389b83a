import type { Database } from '../../database.js';
import type { RoutineKind, SchemaObjectQueries, TriggerEvent, TriggerInfo } from '../../catalog/schemaObjects.js';
import { catalogRows } from '../../catalog/catalogRead.js';
import { bounded, foreignKeysOf, ONE_ROW_PER_ITEM } from '../../catalog/schemaObjectReads.js';

/** Indexes, foreign keys, views, routines and triggers from pg_catalog; every name is a bound parameter. */

const RELATION_KINDS = "('r', 'p', 'v', 'm', 'f')";
const ACTION = (column: string) =>
  `CASE ${column} WHEN 'a' THEN 'NO ACTION' WHEN 'r' THEN 'RESTRICT' WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' ELSE 'SET DEFAULT' END`;

// pg_trigger.tgtype bits (src/include/catalog/pg_trigger.h).
const TRIGGER_BEFORE = 1 << 1;
const TRIGGER_INSTEAD = 1 << 6;
const TRIGGER_EVENTS: [number, TriggerEvent][] = [
  [1 << 2, 'INSERT'],
  [1 << 4, 'UPDATE'],
  [1 << 3, 'DELETE'],
  [1 << 5, 'TRUNCATE'],
];

const ROUTINE_KINDS: Record<string, RoutineKind> = { f: 'function', p: 'procedure', a: 'aggregate', w: 'window' };

/** The relation's oid and name, matched exactly first and then case-insensitively (unquoted names fold to lower case). */
async function relation(db: Database, schema: string, name: string, kinds: string, signal: AbortSignal) {
  const { rows } = await catalogRows(
    db,
    `SELECT c.oid::int AS oid, c.relname AS name, c.relkind = 'm' AS materialized FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ${kinds} AND n.nspname = $1 AND lower(c.relname) = lower($2)
     ORDER BY c.relname = $2 DESC LIMIT 1`,
    [schema, name],
    signal,
  );
  const [found] = rows;
  return found === undefined ? undefined : { oid: Number(found.oid), name: String(found.name), materialized: Boolean(found.materialized) };
}

export const postgresSchemaObjects: SchemaObjectQueries = {
  async findTable(db, schema, table, signal) {
    return (await relation(db, schema, table, RELATION_KINDS, signal))?.name;
  },

  async listIndexes(db, schema, table, signal) {
    const { rows, truncated } = await catalogRows(
      db,
      `SELECT n.nspname AS schema_name, t.relname AS table_name, i.relname AS index_name,
              ARRAY(SELECT pg_get_indexdef(ix.indexrelid, k, true) FROM generate_series(1, ix.indnkeyatts::int) AS k ORDER BY k) AS key_parts,
              ix.indisunique AS is_unique, ix.indisprimary AS is_primary, am.amname AS method,
              pg_get_expr(ix.indpred, ix.indrelid, true) AS predicate, pg_get_indexdef(ix.indexrelid) AS definition
       FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace JOIN pg_am am ON am.oid = i.relam
       WHERE n.nspname = $1 AND ($2::text IS NULL OR t.relname = $2)
       ORDER BY t.relname COLLATE "C", i.relname COLLATE "C" LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema, table ?? null],
      signal,
      ONE_ROW_PER_ITEM,
    );
    const indexes = rows.map((row) => ({
      schema: String(row.schema_name),
      table: String(row.table_name),
      name: String(row.index_name),
      columns: (row.key_parts as unknown[]).map(String),
      unique: Boolean(row.is_unique),
      primary: Boolean(row.is_primary),
      method: String(row.method),
      predicate: row.predicate === null ? null : String(row.predicate),
      definition: String(row.definition),
    }));
    return bounded(indexes, truncated);
  },

  async listForeignKeys(db, schema, table, signal) {
    const { rows, truncated } = await catalogRows(
      db,
      `WITH target AS (
         SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2)
       SELECT con.conrelid = target.oid AS is_outgoing, con.confrelid = target.oid AS is_incoming, con.oid::int AS key_id,
              con.conname AS key_name, n.nspname AS schema_name, c.relname AS table_name, a.attname AS column_name,
              fn.nspname AS referenced_schema, fc.relname AS referenced_table, fa.attname AS referenced_column,
              ${ACTION('con.confupdtype')} AS on_update, ${ACTION('con.confdeltype')} AS on_delete
       FROM target JOIN pg_constraint con ON con.contype = 'f' AND target.oid IN (con.conrelid, con.confrelid)
       JOIN pg_class c ON c.oid = con.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_class fc ON fc.oid = con.confrelid JOIN pg_namespace fn ON fn.oid = fc.relnamespace
       CROSS JOIN LATERAL unnest(con.conkey, con.confkey) WITH ORDINALITY AS k(col, fcol, ord)
       JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.col
       JOIN pg_attribute fa ON fa.attrelid = con.confrelid AND fa.attnum = k.fcol
       ORDER BY n.nspname COLLATE "C", c.relname COLLATE "C", con.conname COLLATE "C", con.oid, k.ord`,
      [schema, table],
      signal,
    );
    return foreignKeysOf(rows, truncated);
  },

  async listViews(db, schema, signal) {
    const { rows, truncated } = await catalogRows(
      db,
      `SELECT n.nspname AS schema_name, c.relname AS view_name, c.relkind = 'm' AS materialized
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind IN ('v', 'm') AND n.nspname = $1 ORDER BY c.relname COLLATE "C" LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema],
      signal,
      ONE_ROW_PER_ITEM,
    );
    return bounded(
      rows.map((row) => ({ schema: String(row.schema_name), name: String(row.view_name), materialized: Boolean(row.materialized) })),
      truncated,
    );
  },

  async viewDefinition(db, schema, view, signal) {
    const found = await relation(db, schema, view, "('v', 'm')", signal);
    if (!found) return undefined;
    const { rows } = await catalogRows(db, 'SELECT pg_get_viewdef($1::oid, true) AS definition', [found.oid], signal);
    return { schema, name: found.name, materialized: found.materialized, definition: String(rows[0]?.definition).trim() };
  },

  async listRoutines(db, schema, signal) {
    const { rows, truncated } = await catalogRows(
      db,
      `SELECT n.nspname AS schema_name, p.proname AS routine_name, p.prokind AS kind, pg_get_function_identity_arguments(p.oid) AS signature,
              CASE WHEN p.prokind = 'p' THEN NULL ELSE pg_get_function_result(p.oid) END AS return_type, l.lanname AS language
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
       WHERE n.nspname = $1 AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
         AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
       ORDER BY p.proname COLLATE "C", pg_get_function_identity_arguments(p.oid) COLLATE "C" LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema],
      signal,
      ONE_ROW_PER_ITEM,
    );
    const routines = rows.map((row) => ({
      schema: String(row.schema_name),
      name: String(row.routine_name),
      kind: ROUTINE_KINDS[String(row.kind)] ?? 'function',
      signature: String(row.signature),
      return_type: row.return_type === null ? null : String(row.return_type),
      language: String(row.language),
    }));
    return bounded(routines, truncated);
  },

  async listTriggers(db, schema, table, signal) {
    const { rows, truncated } = await catalogRows(
      db,
      `SELECT n.nspname AS schema_name, c.relname AS table_name, t.tgname AS trigger_name, t.tgtype::int AS type_bits,
              pg_get_triggerdef(t.oid, true) AS definition
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE NOT t.tgisinternal AND n.nspname = $1 AND ($2::text IS NULL OR c.relname = $2)
       ORDER BY c.relname COLLATE "C", t.tgname COLLATE "C" LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema, table ?? null],
      signal,
      ONE_ROW_PER_ITEM,
    );
    const triggers = rows.map((row): TriggerInfo => {
      const bits = Number(row.type_bits);
      return {
        schema: String(row.schema_name),
        table: String(row.table_name),
        name: String(row.trigger_name),
        timing: bits & TRIGGER_INSTEAD ? 'INSTEAD OF' : bits & TRIGGER_BEFORE ? 'BEFORE' : 'AFTER',
        events: TRIGGER_EVENTS.filter(([bit]) => bits & bit).map(([, event]) => event),
        definition: String(row.definition),
      };
    });
    return bounded(triggers, truncated);
  },
};
