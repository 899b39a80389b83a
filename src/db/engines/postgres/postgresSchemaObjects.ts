import type { Database } from '../../database.js';
import type { RoutineKind, SchemaObjectQueries, TriggerEvent, TriggerInfo } from '../../catalog/schemaObjects.js';
import { catalogResult } from '../../catalog/catalogRead.js';
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
  const { rows } = await catalogResult(
    db,
    `SELECT c.oid::int, c.relname, c.relkind = 'm' FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ${kinds} AND n.nspname = $1 AND lower(c.relname) = lower($2)
     ORDER BY c.relname = $2 DESC LIMIT 1`,
    [schema, name],
    signal,
  );
  const [oid, found, materialized] = rows[0] ?? [];
  return oid === undefined ? undefined : { oid: Number(oid), name: String(found), materialized: Boolean(materialized) };
}

export const postgresSchemaObjects: SchemaObjectQueries = {
  async findTable(db, schema, table, signal) {
    return (await relation(db, schema, table, RELATION_KINDS, signal))?.name;
  },

  async listIndexes(db, schema, table, signal) {
    const { rows, truncated } = await catalogResult(
      db,
      `SELECT n.nspname, t.relname, i.relname,
              ARRAY(SELECT pg_get_indexdef(ix.indexrelid, k, true) FROM generate_series(1, ix.indnkeyatts::int) AS k ORDER BY k),
              ix.indisunique, ix.indisprimary, am.amname, pg_get_expr(ix.indpred, ix.indrelid, true), pg_get_indexdef(ix.indexrelid)
       FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace JOIN pg_am am ON am.oid = i.relam
       WHERE n.nspname = $1 AND ($2::text IS NULL OR t.relname = $2)
       ORDER BY t.relname COLLATE "C", i.relname COLLATE "C" LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema, table ?? null],
      signal,
      ONE_ROW_PER_ITEM,
    );
    const indexes = rows.map(([s, t, name, columns, unique, primary, method, predicate, definition]) => ({
      schema: String(s),
      table: String(t),
      name: String(name),
      columns: (columns as unknown[]).map(String),
      unique: Boolean(unique),
      primary: Boolean(primary),
      method: String(method),
      predicate: predicate === null ? null : String(predicate),
      definition: String(definition),
    }));
    return bounded(indexes, truncated);
  },

  async listForeignKeys(db, schema, table, signal) {
    const { rows, truncated } = await catalogResult(
      db,
      `WITH target AS (
         SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2)
       SELECT con.conrelid = target.oid, con.confrelid = target.oid, con.oid::int, con.conname,
              n.nspname, c.relname, a.attname, fn.nspname, fc.relname, fa.attname,
              ${ACTION('con.confupdtype')}, ${ACTION('con.confdeltype')}
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
    const { rows, truncated } = await catalogResult(
      db,
      `SELECT n.nspname, c.relname, c.relkind = 'm' FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind IN ('v', 'm') AND n.nspname = $1 ORDER BY c.relname COLLATE "C" LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema],
      signal,
      ONE_ROW_PER_ITEM,
    );
    return bounded(
      rows.map(([s, name, materialized]) => ({ schema: String(s), name: String(name), materialized: Boolean(materialized) })),
      truncated,
    );
  },

  async viewDefinition(db, schema, view, signal) {
    const found = await relation(db, schema, view, "('v', 'm')", signal);
    if (!found) return undefined;
    const { rows } = await catalogResult(db, 'SELECT pg_get_viewdef($1::oid, true)', [found.oid], signal);
    return { schema, name: found.name, materialized: found.materialized, definition: String(rows[0]?.[0]).trim() };
  },

  async listRoutines(db, schema, signal) {
    const { rows, truncated } = await catalogResult(
      db,
      `SELECT n.nspname, p.proname, p.prokind, pg_get_function_identity_arguments(p.oid),
              CASE WHEN p.prokind = 'p' THEN NULL ELSE pg_get_function_result(p.oid) END, l.lanname
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
       WHERE n.nspname = $1 AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
         AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
       ORDER BY p.proname COLLATE "C", pg_get_function_identity_arguments(p.oid) COLLATE "C" LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema],
      signal,
      ONE_ROW_PER_ITEM,
    );
    const routines = rows.map(([s, name, kind, signature, returns, language]) => ({
      schema: String(s),
      name: String(name),
      kind: ROUTINE_KINDS[String(kind)] ?? 'function',
      signature: String(signature),
      return_type: returns === null ? null : String(returns),
      language: String(language),
    }));
    return bounded(routines, truncated);
  },

  async listTriggers(db, schema, table, signal) {
    const { rows, truncated } = await catalogResult(
      db,
      `SELECT n.nspname, c.relname, t.tgname, t.tgtype::int, pg_get_triggerdef(t.oid, true)
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE NOT t.tgisinternal AND n.nspname = $1 AND ($2::text IS NULL OR c.relname = $2)
       ORDER BY c.relname COLLATE "C", t.tgname COLLATE "C" LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema, table ?? null],
      signal,
      ONE_ROW_PER_ITEM,
    );
    const triggers = rows.map(([s, t, name, type, definition]): TriggerInfo => {
      const bits = Number(type);
      return {
        schema: String(s),
        table: String(t),
        name: String(name),
        timing: bits & TRIGGER_INSTEAD ? 'INSTEAD OF' : bits & TRIGGER_BEFORE ? 'BEFORE' : 'AFTER',
        events: TRIGGER_EVENTS.filter(([bit]) => bits & bit).map(([, event]) => event),
        definition: String(definition),
      };
    });
    return bounded(triggers, truncated);
  },
};
