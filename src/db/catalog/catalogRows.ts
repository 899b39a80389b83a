import type { ColumnDescription, ForeignKeyDescription, IndexDescription } from '../database.js';

type Row = unknown[];

const FK_ACTIONS: Record<string, string> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' };

/** Rows of (column, type, nullable, default) in column order, as column descriptions. */
export function describedColumns(rows: Row[], primaryKey: readonly string[]): ColumnDescription[] {
  return rows.map(([name, type, nullable, dflt]) => ({
    name: String(name),
    type: String(type),
    // A boolean on PostgreSQL, 0 or 1 on MySQL.
    nullable: Boolean(Number(nullable)),
    default: dflt === null ? null : String(dflt),
    primary_key: primaryKey.includes(String(name)),
  }));
}

/** Rows of (index, unique, column), one per column in key order, as index descriptions. */
export function groupIndexes(rows: Row[]): IndexDescription[] {
  const indexes = new Map<string, IndexDescription>();
  for (const [name, unique, column] of rows) {
    const entry = indexes.get(String(name)) ?? { name: String(name), columns: [], unique: Boolean(Number(unique)) };
    entry.columns.push(String(column));
    indexes.set(String(name), entry);
  }
  return [...indexes.values()];
}

/**
 * Rows of (constraint, referenced schema, referenced table, column, referenced column, on update,
 * on delete), one per column in key order, as foreign keys. PostgreSQL's one-letter actions are spelled out.
 */
export function groupForeignKeys(rows: Row[]): ForeignKeyDescription[] {
  const keys = new Map<string, ForeignKeyDescription>();
  for (const [name, refSchema, refTable, column, refColumn, onUpdate, onDelete] of rows) {
    const entry = keys.get(String(name)) ?? {
      columns: [],
      references_schema: String(refSchema),
      references_table: String(refTable),
      references_columns: [],
      on_update: FK_ACTIONS[String(onUpdate)] ?? String(onUpdate),
      on_delete: FK_ACTIONS[String(onDelete)] ?? String(onDelete),
    };
    entry.columns.push(String(column));
    entry.references_columns.push(refColumn === null ? '' : String(refColumn));
    keys.set(String(name), entry);
  }
  return [...keys.values()];
}
