import type { Database } from '../../database.js';
import type { IndexInfo, SchemaObjectQueries } from '../../catalog/schemaObjects.js';
import { indexDefinitionParts, triggerHeader, viewQuery } from '../../../sql/createStatementParts.js';
import { catalogRows } from '../../catalog/catalogRead.js';
import { bounded, foreignKeysOf, ONE_ROW_PER_ITEM } from '../../catalog/schemaObjectReads.js';
import { DriverFailure } from '../../driverFailure.js';
import { SQL_DIALECTS } from '../../../sql/dialects.js';

/**
 * Indexes, foreign keys, views and triggers from the pragma table-valued functions and sqlite_schema.
 * Names go as bound parameters; only the schema names the sqlite_schema it reads, and it is first
 * checked to be one of the connection's attached databases.
 */

const NO_ROUTINES = 'SQLite has no stored functions or procedures; its functions are built in or registered by the application.';
const USER_TABLES = "t.type = 'table' AND t.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'";

/** `schema`'s sqlite_schema, once the schema is known to be attached. */
async function catalogOf(db: Database, schema: string, signal: AbortSignal): Promise<string> {
  if (!(await db.listSchemas(signal)).includes(schema)) throw new DriverFailure('not_found', `no schema "${schema}"; call list_schemas`);
  return `${SQL_DIALECTS.sqlite.quoteIdent(schema)}.sqlite_schema`;
}

export const sqliteSchemaObjects: SchemaObjectQueries = {
  async findTable(db, schema, table, signal) {
    const { rows } = await catalogRows(
      db,
      `SELECT t.name AS table_name FROM pragma_table_list AS t WHERE t.schema = ? AND t.type IN ('table', 'view') AND t.name = ? COLLATE NOCASE
       ORDER BY t.name = ? DESC LIMIT 1`,
      [schema, table, table],
      signal,
    );
    return rows[0] === undefined ? undefined : String(rows[0].table_name);
  },

  async listIndexes(db, schema, table, signal) {
    const catalog = await catalogOf(db, schema, signal);
    const { rows, truncated } = await catalogRows(
      db,
      `SELECT t.name AS table_name, il.name AS index_name, il."unique" AS is_unique, il.origin = 'pk' AS is_primary,
              (SELECT json_group_array(x.name ORDER BY x.seqno) FROM pragma_index_xinfo(il.name, t.schema) AS x WHERE x.key) AS key_columns,
              s.sql AS definition
       FROM pragma_table_list AS t JOIN pragma_index_list(t.name, t.schema) AS il
       LEFT JOIN ${catalog} AS s ON s.type = 'index' AND s.name = il.name
       WHERE t.schema = ? AND ${USER_TABLES} AND (? IS NULL OR t.name = ?)
       ORDER BY t.name, il.name LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema, table ?? null, table ?? null],
      signal,
      ONE_ROW_PER_ITEM,
    );
    const indexes = rows.map((row): IndexInfo => {
      const names = JSON.parse(String(row.key_columns)) as (string | null)[];
      const sql = row.definition;
      // An expression has no column name: its text is the key part as the CREATE INDEX wrote it.
      const { parts, predicate } = sql === null ? { parts: [], predicate: null } : indexDefinitionParts(String(sql), 'sqlite');
      return {
        schema,
        table: String(row.table_name),
        name: String(row.index_name),
        columns: names.map((column, n) => column ?? parts[n] ?? ''),
        unique: Boolean(row.is_unique),
        primary: Boolean(row.is_primary),
        method: 'btree',
        predicate,
        definition: sql === null ? null : String(sql),
      };
    });
    return bounded(indexes, truncated);
  },

  async listForeignKeys(db, schema, table, signal) {
    // A key that names no columns of its parent references the parent's primary key.
    const referenced = `coalesce(fk."to", (SELECT p.name FROM pragma_table_info(fk."table", ?) AS p WHERE p.pk = fk.seq + 1))`;
    const outgoing = await catalogRows(
      db,
      `SELECT 1 AS is_outgoing, 0 AS is_incoming, fk.id AS key_id, NULL AS key_name, ? AS schema_name, ? AS table_name,
              fk."from" AS column_name, ? AS referenced_schema, fk."table" AS referenced_table, ${referenced} AS referenced_column,
              fk.on_update AS on_update, fk.on_delete AS on_delete
       FROM pragma_foreign_key_list(?, ?) AS fk ORDER BY fk.id, fk.seq`,
      [schema, table, schema, schema, table, schema],
      signal,
    );
    const incoming = await catalogRows(
      db,
      `SELECT 0 AS is_outgoing, 1 AS is_incoming, t.name || '.' || fk.id AS key_id, NULL AS key_name, t.schema AS schema_name,
              t.name AS table_name, fk."from" AS column_name, t.schema AS referenced_schema, fk."table" AS referenced_table,
              ${referenced} AS referenced_column, fk.on_update AS on_update, fk.on_delete AS on_delete
       FROM pragma_table_list AS t JOIN pragma_foreign_key_list(t.name, t.schema) AS fk
       WHERE t.schema = ? AND ${USER_TABLES} AND fk."table" = ? COLLATE NOCASE ORDER BY t.name, fk.id, fk.seq`,
      [schema, schema, table],
      signal,
    );
    return foreignKeysOf([...outgoing.rows, ...incoming.rows], outgoing.truncated || incoming.truncated);
  },

  async listViews(db, schema, signal) {
    const { rows, truncated } = await catalogRows(
      db,
      `SELECT name AS view_name FROM ${await catalogOf(db, schema, signal)} WHERE type = 'view' ORDER BY name LIMIT ${ONE_ROW_PER_ITEM}`,
      [],
      signal,
      ONE_ROW_PER_ITEM,
    );
    return bounded(
      rows.map((row) => ({ schema, name: String(row.view_name), materialized: false })),
      truncated,
    );
  },

  async viewDefinition(db, schema, view, signal) {
    const { rows } = await catalogRows(
      db,
      `SELECT name AS view_name, sql AS definition FROM ${await catalogOf(db, schema, signal)} WHERE type = 'view' AND name = ? COLLATE NOCASE
       ORDER BY name = ? DESC LIMIT 1`,
      [view, view],
      signal,
    );
    const [found] = rows;
    return found === undefined ? undefined : { schema, name: String(found.view_name), materialized: false, definition: viewQuery(String(found.definition), 'sqlite') };
  },

  async listRoutines(db, schema, signal) {
    await catalogOf(db, schema, signal);
    return { items: [], truncated: false, note: NO_ROUTINES };
  },

  async listTriggers(db, schema, table, signal) {
    const { rows, truncated } = await catalogRows(
      db,
      `SELECT tbl_name AS table_name, name AS trigger_name, sql AS definition FROM ${await catalogOf(db, schema, signal)}
       WHERE type = 'trigger' AND (? IS NULL OR tbl_name = ? COLLATE NOCASE) ORDER BY tbl_name, name LIMIT ${ONE_ROW_PER_ITEM}`,
      [table ?? null, table ?? null],
      signal,
      ONE_ROW_PER_ITEM,
    );
    const triggers = rows.map((row) => ({
      schema,
      table: String(row.table_name),
      name: String(row.trigger_name),
      ...triggerHeader(String(row.definition), 'sqlite'),
      definition: String(row.definition),
    }));
    return bounded(triggers, truncated);
  },
};
