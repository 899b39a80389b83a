import type { Database } from '../database.js';
import { engineModule } from '../engines/registry.js';
import { DriverFailure } from '../driverFailure.js';
import type { TriggerTiming } from '../../sql/createStatementParts.js';

/**
 * Indexes, foreign keys, views, routines and triggers of any engine, in one shape: the types the
 * tools return, and the calls to each engine module's catalog queries. Every list holds at most
 * `SCHEMA_OBJECTS_MAX_ITEMS` items and says `is_truncated` when there were more.
 */

export type IndexInfo = {
  schema: string;
  table: string;
  name: string;
  /** Key columns in order; an expression appears as its text. */
  columns: string[];
  unique: boolean;
  primary: boolean;
  /** The access method (btree, hash, gin, fulltext…), lower case. */
  method: string | null;
  /** The WHERE of a partial index, where the engine keeps it. */
  predicate: string | null;
  /** The CREATE INDEX statement, where the engine has one. */
  definition: string | null;
};

export type ForeignKeyInfo = {
  /** The constraint's name; null on SQLite, which does not keep one. */
  name: string | null;
  schema: string;
  table: string;
  columns: string[];
  referenced_schema: string;
  referenced_table: string;
  referenced_columns: string[];
  on_update: string;
  on_delete: string;
};

export type ForeignKeys = {
  schema: string;
  table: string;
  /** Keys of this table that reference others. */
  outgoing: ForeignKeyInfo[];
  /** Keys of other tables (or this one) that reference this table. */
  incoming: ForeignKeyInfo[];
  is_truncated: boolean;
};

export type ViewInfo = { schema: string; name: string; materialized: boolean };

export type ViewDefinition = ViewInfo & { definition: string };

export type RoutineKind = 'function' | 'procedure' | 'aggregate' | 'window';

export type RoutineInfo = {
  schema: string;
  name: string;
  kind: RoutineKind;
  /** The argument list with types, as the engine writes it. */
  signature: string;
  return_type: string | null;
  language: string | null;
};

export type TriggerEvent = 'INSERT' | 'UPDATE' | 'DELETE' | 'TRUNCATE';

export type TriggerInfo = {
  schema: string;
  table: string;
  name: string;
  timing: TriggerTiming;
  events: TriggerEvent[];
  /** The CREATE TRIGGER statement (on MySQL, the trigger's body). */
  definition: string;
};

export type Listed<T> = { items: T[]; truncated: boolean };

/** One engine's catalog queries; `schema` is always given, `table` already resolved by `findTable`. */
export type SchemaObjectQueries = {
  /** The table's or view's name as the catalog spells it (exact match first, then case-insensitive). */
  findTable(db: Database, schema: string, table: string, signal: AbortSignal): Promise<string | undefined>;
  listIndexes(db: Database, schema: string, table: string | undefined, signal: AbortSignal): Promise<Listed<IndexInfo>>;
  listForeignKeys(
    db: Database,
    schema: string,
    table: string,
    signal: AbortSignal,
  ): Promise<{ outgoing: ForeignKeyInfo[]; incoming: ForeignKeyInfo[]; truncated: boolean }>;
  listViews(db: Database, schema: string, signal: AbortSignal): Promise<Listed<ViewInfo>>;
  viewDefinition(db: Database, schema: string, view: string, signal: AbortSignal): Promise<ViewDefinition | undefined>;
  /** A note when the engine has no routines of its own kind to list. */
  listRoutines(db: Database, schema: string, signal: AbortSignal): Promise<Listed<RoutineInfo> & { note?: string }>;
  listTriggers(db: Database, schema: string, table: string | undefined, signal: AbortSignal): Promise<Listed<TriggerInfo>>;
};

const queriesOf = (db: Database) => engineModule(db.engine).schemaObjects;

async function tableOrFail(queries: SchemaObjectQueries, db: Database, schema: string, table: string, signal: AbortSignal) {
  const found = await queries.findTable(db, schema, table, signal);
  if (found === undefined) throw new DriverFailure('not_found', `no table or view named "${table}" in schema "${schema}"; call list_tables`);
  return found;
}

export async function listIndexes(db: Database, schema: string | undefined, table: string | undefined, signal: AbortSignal) {
  const queries = queriesOf(db);
  const inSchema = schema ?? db.defaultSchema();
  const resolved = table === undefined ? undefined : await tableOrFail(queries, db, inSchema, table, signal);
  const { items, truncated } = await queries.listIndexes(db, inSchema, resolved, signal);
  return { indexes: items, is_truncated: truncated };
}

export async function listForeignKeys(db: Database, schema: string | undefined, table: string, signal: AbortSignal): Promise<ForeignKeys> {
  const queries = queriesOf(db);
  const inSchema = schema ?? db.defaultSchema();
  const resolved = await tableOrFail(queries, db, inSchema, table, signal);
  const { outgoing, incoming, truncated } = await queries.listForeignKeys(db, inSchema, resolved, signal);
  return { schema: inSchema, table: resolved, outgoing, incoming, is_truncated: truncated };
}

export async function listViews(db: Database, schema: string | undefined, signal: AbortSignal) {
  const { items, truncated } = await queriesOf(db).listViews(db, schema ?? db.defaultSchema(), signal);
  return { views: items, is_truncated: truncated };
}

export async function viewDefinition(db: Database, schema: string | undefined, view: string, signal: AbortSignal): Promise<ViewDefinition> {
  const inSchema = schema ?? db.defaultSchema();
  const found = await queriesOf(db).viewDefinition(db, inSchema, view, signal);
  if (!found) throw new DriverFailure('not_found', `no view named "${view}" in schema "${inSchema}"; call list_views`);
  return found;
}

export async function listRoutines(db: Database, schema: string | undefined, signal: AbortSignal) {
  const { items, truncated, note } = await queriesOf(db).listRoutines(db, schema ?? db.defaultSchema(), signal);
  return { routines: items, is_truncated: truncated, ...(note === undefined ? {} : { note }) };
}

export async function listTriggers(db: Database, schema: string | undefined, table: string | undefined, signal: AbortSignal) {
  const queries = queriesOf(db);
  const inSchema = schema ?? db.defaultSchema();
  const resolved = table === undefined ? undefined : await tableOrFail(queries, db, inSchema, table, signal);
  const { items, truncated } = await queries.listTriggers(db, inSchema, resolved, signal);
  return { triggers: items, is_truncated: truncated };
}
