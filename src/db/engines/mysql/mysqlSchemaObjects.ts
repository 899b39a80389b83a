import type { Database } from '../../database.js';
import type { IndexInfo, RoutineInfo, SchemaObjectQueries, TriggerEvent, TriggerInfo } from '../../catalog/schemaObjects.js';
import { catalogResult } from '../../catalog/catalogRead.js';
import { bounded, foreignKeysOf, groupRows, ONE_ROW_PER_ITEM } from '../../catalog/schemaObjectReads.js';

/**
 * Indexes, foreign keys, views, routines and triggers from information_schema (MySQL and MariaDB);
 * every name is a bound parameter. A schema is a database here.
 */

/** An index part that is an expression (MySQL 8 functional key parts): information_schema has no column name for it. */
const EXPRESSION_PART = '(expression)';

async function relationName(db: Database, schema: string, name: string, types: string, signal: AbortSignal) {
  const { rows } = await catalogResult(
    db,
    `SELECT TABLE_NAME FROM information_schema.TABLES
     WHERE TABLE_SCHEMA = ? AND TABLE_TYPE IN ${types} AND LOWER(TABLE_NAME) = LOWER(?) ORDER BY TABLE_NAME = ? DESC LIMIT 1`,
    [schema, name, name],
    signal,
  );
  return rows[0] === undefined ? undefined : String(rows[0][0]);
}

export const mysqlSchemaObjects: SchemaObjectQueries = {
  async findTable(db, schema, table, signal) {
    return relationName(db, schema, table, "('BASE TABLE', 'VIEW', 'SYSTEM VERSIONED')", signal);
  },

  async listIndexes(db, schema, table, signal) {
    const { rows, truncated } = await catalogResult(
      db,
      `SELECT TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, NON_UNIQUE = 0, INDEX_NAME = 'PRIMARY', LOWER(INDEX_TYPE), COLUMN_NAME, SUB_PART
       FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND (? IS NULL OR TABLE_NAME = ?)
       ORDER BY BINARY TABLE_NAME, BINARY INDEX_NAME, SEQ_IN_INDEX`,
      [schema, table ?? null, table ?? null],
      signal,
    );
    const indexes = groupRows(
      rows,
      (row) => `${String(row[1])}\n${String(row[2])}`,
      ([s, t, name, unique, primary, method]): IndexInfo => ({
        schema: String(s),
        table: String(t),
        name: String(name),
        columns: [],
        unique: Boolean(Number(unique)),
        primary: Boolean(Number(primary)),
        method: String(method),
        predicate: null,
        definition: null,
      }),
      (index, [, , , , , , column, prefix]) => {
        const part = column === null ? EXPRESSION_PART : String(column);
        index.columns.push(prefix === null ? part : `${part}(${String(prefix)})`);
      },
    );
    return bounded(indexes, truncated);
  },

  async listForeignKeys(db, schema, table, signal) {
    const { rows, truncated } = await catalogResult(
      db,
      `SELECT k.TABLE_SCHEMA = ? AND k.TABLE_NAME = ?, k.REFERENCED_TABLE_SCHEMA = ? AND k.REFERENCED_TABLE_NAME = ?,
              CONCAT(k.TABLE_SCHEMA, '.', k.TABLE_NAME, '.', k.CONSTRAINT_NAME), k.CONSTRAINT_NAME, k.TABLE_SCHEMA, k.TABLE_NAME, k.COLUMN_NAME,
              k.REFERENCED_TABLE_SCHEMA, k.REFERENCED_TABLE_NAME, k.REFERENCED_COLUMN_NAME, r.UPDATE_RULE, r.DELETE_RULE
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
    const { rows, truncated } = await catalogResult(
      db,
      `SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ?
       ORDER BY BINARY TABLE_NAME LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema],
      signal,
      ONE_ROW_PER_ITEM,
    );
    return bounded(
      rows.map(([s, name]) => ({ schema: String(s), name: String(name), materialized: false })),
      truncated,
    );
  },

  async viewDefinition(db, schema, view, signal) {
    const name = await relationName(db, schema, view, "('VIEW')", signal);
    if (name === undefined) return undefined;
    const { rows } = await catalogResult(
      db,
      'SELECT VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
      [schema, name],
      signal,
    );
    return { schema, name, materialized: false, definition: String(rows[0]?.[0] ?? '').trim() };
  },

  async listRoutines(db, schema, signal) {
    const routines = await catalogResult(
      db,
      `SELECT ROUTINE_SCHEMA, ROUTINE_NAME, LOWER(ROUTINE_TYPE), DTD_IDENTIFIER, ROUTINE_BODY
       FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ? AND ROUTINE_TYPE IN ('FUNCTION', 'PROCEDURE')
       ORDER BY BINARY ROUTINE_NAME, ROUTINE_TYPE LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema],
      signal,
      ONE_ROW_PER_ITEM,
    );
    const parameters = await catalogResult(
      db,
      `SELECT LOWER(ROUTINE_TYPE), SPECIFIC_NAME, PARAMETER_MODE, PARAMETER_NAME, DTD_IDENTIFIER FROM information_schema.PARAMETERS
       WHERE SPECIFIC_SCHEMA = ? AND ORDINAL_POSITION > 0 ORDER BY SPECIFIC_NAME, ROUTINE_TYPE, ORDINAL_POSITION`,
      [schema],
      signal,
    );
    const argumentsOf = new Map<string, string[]>();
    for (const [kind, routine, mode, name, type] of parameters.rows) {
      const key = `${String(kind)}\n${String(routine)}`;
      // A function's parameters are all IN: MySQL gives them no mode, MariaDB says IN.
      const text = `${kind === 'procedure' ? `${String(mode)} ` : ''}${String(name)} ${String(type)}`;
      argumentsOf.set(key, [...(argumentsOf.get(key) ?? []), text]);
    }
    const items = routines.rows.map(
      ([s, name, kind, returns, language]): RoutineInfo => ({
        schema: String(s),
        name: String(name),
        kind: kind === 'procedure' ? 'procedure' : 'function',
        signature: (argumentsOf.get(`${String(kind)}\n${String(name)}`) ?? []).join(', '),
        return_type: returns === null ? null : String(returns),
        language: language === null ? null : String(language),
      }),
    );
    return bounded(items, routines.truncated || parameters.truncated);
  },

  async listTriggers(db, schema, table, signal) {
    const { rows, truncated } = await catalogResult(
      db,
      `SELECT TRIGGER_SCHEMA, EVENT_OBJECT_TABLE, TRIGGER_NAME, ACTION_TIMING, EVENT_MANIPULATION, ACTION_STATEMENT
       FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ? AND (? IS NULL OR EVENT_OBJECT_TABLE = ?)
       ORDER BY BINARY EVENT_OBJECT_TABLE, BINARY TRIGGER_NAME LIMIT ${ONE_ROW_PER_ITEM}`,
      [schema, table ?? null, table ?? null],
      signal,
      ONE_ROW_PER_ITEM,
    );
    const triggers = rows.map(
      ([s, t, name, timing, event, definition]): TriggerInfo => ({
        schema: String(s),
        table: String(t),
        name: String(name),
        timing: String(timing) as TriggerInfo['timing'],
        events: [String(event) as TriggerEvent],
        definition: String(definition),
      }),
    );
    return bounded(triggers, truncated);
  },
};
