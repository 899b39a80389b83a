import type { Database } from '../../database.js';
import type { IndexInfo, RoutineInfo, SchemaObjectQueries, TriggerEvent, TriggerInfo } from '../../catalog/schemaObjects.js';
import { catalogRows } from '../../catalog/catalogRead.js';
import { bounded, foreignKeysOf, groupRows, ONE_ROW_PER_ITEM } from '../../catalog/schemaObjectReads.js';

/**
 * Indexes, foreign keys, views, routines and triggers from information_schema (MySQL and MariaDB);
 * every name is a bound parameter. A schema is a database here.
 */

/** An index part that is an expression (MySQL 8 functional key parts): information_schema has no column name for it. */
const EXPRESSION_PART = '(expression)';

async function relationName(db: Database, schema: string, name: string, types: string, signal: AbortSignal) {
  const { rows } = await catalogRows(
    db,
    `SELECT TABLE_NAME AS table_name FROM information_schema.TABLES
     WHERE TABLE_SCHEMA = ? AND TABLE_TYPE IN ${types} AND LOWER(TABLE_NAME) = LOWER(?) ORDER BY TABLE_NAME = ? DESC LIMIT 1`,
    [schema, name, name],
    signal,
  );
  return rows[0] === undefined ? undefined : String(rows[0].table_name);
}

export const mysqlSchemaObjects: SchemaObjectQueries = {
  async findTable(db, schema, table, signal) {
    return relationName(db, schema, table, "('BASE TABLE', 'VIEW', 'SYSTEM VERSIONED')", signal);
  },

  async listIndexes(db, schema, table, signal) {
    const { rows, truncated } = await catalogRows(
      db,
      `SELECT TABLE_SCHEMA AS schema_name, TABLE_NAME AS table_name, INDEX_NAME AS index_name, NON_UNIQUE = 0 AS is_unique,
              INDEX_NAME = 'PRIMARY' AS is_primary, LOWER(INDEX_TYPE) AS method, COLUMN_NAME AS column_name, SUB_PART AS prefix
       FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND (? IS NULL OR TABLE_NAME = ?)
       ORDER BY BINARY TABLE_NAME, BINARY INDEX_NAME, SEQ_IN_INDEX`,
      [schema, table ?? null, table ?? null],
      signal,
    );
    const indexes = groupRows(
      rows,
      (row) => `${String(row.table_name)}\n${String(row.index_name)}`,
      (row): IndexInfo => ({
        schema: String(row.schema_name),
        table: String(row.table_name),
        name: String(row.index_name),
        columns: [],
        unique: Boolean(Number(row.is_unique)),
        primary: Boolean(Number(row.is_primary)),
        method: String(row.method),
        predicate: null,
        definition: null,
      }),
      (index, row) => {
        const part = row.column_name === null ? EXPRESSION_PART : String(row.column_name);
        index.columns.push(row.prefix === null ? part : `${part}(${String(row.prefix)})`);
      },
    );
    return bounded(indexes, truncated);
  },

  async listForeignKeys(db, schema, table, signal) {
    const { rows, truncated } = await catalogRows(
      db,
      `SELECT k.TABLE_SCHEMA = ? AND k.TABLE_NAME = ? AS is_outgoing, k.REFERENCED_TABLE_SCHEMA = ? AND k.REFERENCED_TABLE_NAME = ? AS is_incoming,
              CONCAT(k.TABLE_SCHEMA, '.', k.TABLE_NAME, '.', k.CONSTRAINT_NAME) AS key_id, k.CONSTRAINT_NAME AS key_name,
              k.TABLE_SCHEMA AS schema_name, k.TABLE_NAME AS table_name, k.COLUMN_NAME AS column_name,
              k.REFERENCED_TABLE_SCHEMA AS referenced_schema, k.REFERENCED_TABLE_NAME AS referenced_table,
              k.REFERENCED_COLUMN_NAME AS referenced_column, r.UPDATE_RULE AS on_update, r.DELETE_RULE AS on_delete
       FROM information_schema.KEY_COLUMN_USAGE k JOIN information_schema.REFERENTIAL_CONSTRAINTS r
         ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME AND r.TABLE_NAME = k.TABLE_NAME
       WHERE k.REFERENCED_TABLE_NAME IS NOT NULL
         AND ((k.TABLE_SCHEMA = ? AND k.TABLE_NAME = ?) OR (k.REFERENCED_TABLE_SCHEMA = ? AND k.REFERENCED_TABLE_NAME = ?))
       ORDER BY BINARY k.TABLE_SCHEMA, BINARY k.TABLE_NAME, BINARY k.CONSTRAINT_NAME, k.ORDINAL_POSITION`,
      [schema, table, schema, table, schema, table, schema, table],
      signal,
    );
    return foreignKeysOf(rows, truncated);
  },

  async listViews(db, schema, signal) {
    const { rows, truncated } = await catalogRows(
      db,
      `SELECT TABLE_SCHEMA AS schema_name, TABLE_NAME AS view_name FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ?
       ORDER BY BINARY TABLE_NAME LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema],
      signal,
      ONE_ROW_PER_ITEM,
    );
    return bounded(
      rows.map((row) => ({ schema: String(row.schema_name), name: String(row.view_name), materialized: false })),
      truncated,
    );
  },

  async viewDefinition(db, schema, view, signal) {
    const name = await relationName(db, schema, view, "('VIEW')", signal);
    if (name === undefined) return undefined;
    const { rows } = await catalogRows(
      db,
      'SELECT VIEW_DEFINITION AS definition FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
      [schema, name],
      signal,
    );
    return { schema, name, materialized: false, definition: String(rows[0]?.definition ?? '').trim() };
  },

  async listRoutines(db, schema, signal) {
    const routines = await catalogRows(
      db,
      `SELECT ROUTINE_SCHEMA AS schema_name, ROUTINE_NAME AS routine_name, LOWER(ROUTINE_TYPE) AS kind,
              DTD_IDENTIFIER AS return_type, ROUTINE_BODY AS language
       FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ? AND ROUTINE_TYPE IN ('FUNCTION', 'PROCEDURE')
       ORDER BY BINARY ROUTINE_NAME, ROUTINE_TYPE LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema],
      signal,
      ONE_ROW_PER_ITEM,
    );
    const parameters = await catalogRows(
      db,
      `SELECT LOWER(ROUTINE_TYPE) AS kind, SPECIFIC_NAME AS routine_name, PARAMETER_MODE AS mode, PARAMETER_NAME AS parameter_name,
              DTD_IDENTIFIER AS parameter_type FROM information_schema.PARAMETERS
       WHERE SPECIFIC_SCHEMA = ? AND ORDINAL_POSITION > 0 ORDER BY SPECIFIC_NAME, ROUTINE_TYPE, ORDINAL_POSITION`,
      [schema],
      signal,
    );
    const argumentsOf = new Map<string, string[]>();
    for (const row of parameters.rows) {
      const key = `${String(row.kind)}\n${String(row.routine_name)}`;
      // A function's parameters are all IN: MySQL gives them no mode, MariaDB says IN.
      const text = `${row.kind === 'procedure' ? `${String(row.mode)} ` : ''}${String(row.parameter_name)} ${String(row.parameter_type)}`;
      argumentsOf.set(key, [...(argumentsOf.get(key) ?? []), text]);
    }
    const items = routines.rows.map(
      (row): RoutineInfo => ({
        schema: String(row.schema_name),
        name: String(row.routine_name),
        kind: row.kind === 'procedure' ? 'procedure' : 'function',
        signature: (argumentsOf.get(`${String(row.kind)}\n${String(row.routine_name)}`) ?? []).join(', '),
        return_type: row.return_type === null ? null : String(row.return_type),
        language: row.language === null ? null : String(row.language),
      }),
    );
    return bounded(items, routines.truncated || parameters.truncated);
  },

  async listTriggers(db, schema, table, signal) {
    const { rows, truncated } = await catalogRows(
      db,
      `SELECT TRIGGER_SCHEMA AS schema_name, EVENT_OBJECT_TABLE AS table_name, TRIGGER_NAME AS trigger_name, ACTION_TIMING AS timing,
              EVENT_MANIPULATION AS event, ACTION_STATEMENT AS definition
       FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ? AND (? IS NULL OR EVENT_OBJECT_TABLE = ?)
       ORDER BY BINARY EVENT_OBJECT_TABLE, BINARY TRIGGER_NAME LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema, table ?? null, table ?? null],
      signal,
      ONE_ROW_PER_ITEM,
    );
    const triggers = rows.map(
      (row): TriggerInfo => ({
        schema: String(row.schema_name),
        table: String(row.table_name),
        name: String(row.trigger_name),
        timing: String(row.timing) as TriggerInfo['timing'],
        events: [String(row.event) as TriggerEvent],
        definition: String(row.definition),
      }),
    );
    return bounded(triggers, truncated);
  },
};
