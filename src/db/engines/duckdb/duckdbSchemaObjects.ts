import type { IndexInfo, RoutineInfo, SchemaObjectQueries } from '../../catalog/schemaObjects.js';
import { indexDefinitionParts, keyPartColumn, viewQuery } from '../../../sql/createStatementParts.js';
import { catalogRows } from '../../catalog/catalogRead.js';
import { bounded, foreignKeysOf, ONE_ROW_PER_ITEM } from '../../catalog/schemaObjectReads.js';

/**
 * Indexes, foreign keys, views and macros from DuckDB's duckdb_*() table functions; every name is a
 * bound parameter. DuckDB has no triggers and no stored procedures; its foreign keys take no actions.
 */

const HERE = 'database_name = current_database() AND schema_name = $1';
/** DuckDB refuses ON UPDATE / ON DELETE actions: a key only forbids what would break it. */
const NO_ACTION = 'NO ACTION';
const names = (list: unknown) => (Array.isArray(list) ? list.map(String) : []);

export const duckdbSchemaObjects: SchemaObjectQueries = {
  async findTable(db, schema, table, signal) {
    const { rows } = await catalogRows(
      db,
      `SELECT name FROM (SELECT table_name AS name FROM duckdb_tables() WHERE ${HERE} AND NOT internal
                         UNION ALL SELECT view_name FROM duckdb_views() WHERE ${HERE} AND NOT internal)
       WHERE lower(name) = lower($2) ORDER BY name = $2 DESC LIMIT 1`,
      [schema, table],
      signal,
    );
    return rows[0] === undefined ? undefined : String(rows[0].name);
  },

  // Keys and unique constraints have indexes of their own that duckdb_indexes() does not list.
  async listIndexes(db, schema, table, signal) {
    const { rows, truncated } = await catalogRows(
      db,
      `SELECT table_name, index_name, is_unique, is_primary, NULL::VARCHAR[] AS key_columns, sql FROM duckdb_indexes()
       WHERE ${HERE} AND ($2::VARCHAR IS NULL OR table_name = $2)
       UNION ALL
       SELECT table_name, constraint_name, true, constraint_type = 'PRIMARY KEY', constraint_column_names, NULL FROM duckdb_constraints()
       WHERE ${HERE} AND ($2::VARCHAR IS NULL OR table_name = $2) AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')
       ORDER BY 1, 2 LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema, table ?? null],
      signal,
      ONE_ROW_PER_ITEM,
    );
    const indexes = rows.map((row): IndexInfo => {
      const { sql } = row;
      const { parts, predicate } = sql === null ? { parts: names(row.key_columns), predicate: null } : indexDefinitionParts(String(sql), 'duckdb');
      return {
        schema,
        table: String(row.table_name),
        name: String(row.index_name),
        columns: parts.map((part) => keyPartColumn(part, 'duckdb')),
        unique: Boolean(row.is_unique),
        primary: Boolean(row.is_primary),
        method: 'art',
        predicate,
        definition: sql === null ? null : String(sql).replace(/;$/, ''),
      };
    });
    return bounded(indexes, truncated);
  },

  async listForeignKeys(db, schema, table, signal) {
    const { rows, truncated } = await catalogRows(
      db,
      `SELECT table_name = $2 AS is_outgoing, lower(referenced_table) = lower($2) AS is_incoming, constraint_name, table_name,
              constraint_column_names, referenced_table, referenced_column_names
       FROM duckdb_constraints() WHERE ${HERE} AND constraint_type = 'FOREIGN KEY' AND (table_name = $2 OR lower(referenced_table) = lower($2))
       ORDER BY table_name, constraint_name`,
      [schema, table],
      signal,
    );
    // One row per key, its columns as lists: one row per column for foreignKeysOf.
    const columnRows = rows.flatMap((row) =>
      names(row.constraint_column_names).map((column, n) => ({
        is_outgoing: row.is_outgoing,
        is_incoming: row.is_incoming,
        key_id: `${String(row.table_name)}.${String(row.constraint_name)}`,
        key_name: row.constraint_name,
        schema_name: schema,
        table_name: row.table_name,
        column_name: column,
        referenced_schema: schema,
        referenced_table: row.referenced_table,
        referenced_column: names(row.referenced_column_names)[n] ?? '',
        on_update: NO_ACTION,
        on_delete: NO_ACTION,
      })),
    );
    return foreignKeysOf(columnRows, truncated);
  },

  async listViews(db, schema, signal) {
    const { rows, truncated } = await catalogRows(
      db,
      `SELECT view_name FROM duckdb_views() WHERE ${HERE} AND NOT internal ORDER BY view_name LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema],
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
      `SELECT view_name, sql FROM duckdb_views() WHERE ${HERE} AND NOT internal AND lower(view_name) = lower($2)
       ORDER BY view_name = $2 DESC LIMIT 1`,
      [schema, view],
      signal,
    );
    const [found] = rows;
    return found === undefined ? undefined : { schema, name: String(found.view_name), materialized: false, definition: viewQuery(String(found.sql), 'duckdb') };
  },

  async listRoutines(db, schema, signal) {
    const { rows, truncated } = await catalogRows(
      db,
      `SELECT function_name, function_type, parameters, parameter_types, return_type FROM duckdb_functions()
       WHERE ${HERE} AND NOT internal ORDER BY function_name, function_oid LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema],
      signal,
      ONE_ROW_PER_ITEM,
    );
    const routines = rows.map((row): RoutineInfo => {
      const { function_type: type, return_type: returns } = row;
      const typeOf = names(row.parameter_types);
      const macro = type === 'macro' || type === 'table_macro';
      return {
        schema,
        name: String(row.function_name),
        kind: type === 'aggregate' ? 'aggregate' : 'function',
        // A macro's parameters are untyped unless declared.
        signature: names(row.parameters)
          .map((parameter, n) => (typeOf[n] && typeOf[n] !== 'null' ? `${parameter} ${typeOf[n]}` : parameter))
          .join(', '),
        return_type: type === 'table_macro' ? 'TABLE' : returns === null ? null : String(returns),
        language: macro ? 'SQL' : null,
      };
    });
    return bounded(routines, truncated);
  },

  async listTriggers() {
    return { items: [], truncated: false };
  },
};
