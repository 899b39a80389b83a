import type { ColumnDescription, ForeignKeyDescription, IndexDescription } from '../database.js';
import type { CatalogRow } from './catalogRead.js';

const FK_ACTIONS: Record<string, string> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' };

/** Rows of `column_name`, `data_type`, `is_nullable`, `column_default` in column order, as column descriptions. */
export function describedColumns(rows: CatalogRow[], primaryKey: readonly string[]): ColumnDescription[] {
  return rows.map((row) => ({
    name: String(row.column_name),
    type: String(row.data_type),
    // A boolean on PostgreSQL, 0 or 1 on MySQL.
    nullable: Boolean(Number(row.is_nullable)),
    default: row.column_default === null ? null : String(row.column_default),
    primary_key: primaryKey.includes(String(row.column_name)),
  }));
}

/** Rows of `index_name`, `is_unique`, `column_name`, one per column in key order, as index descriptions. */
export function groupIndexes(rows: CatalogRow[]): IndexDescription[] {
  const indexes = new Map<string, IndexDescription>();
  for (const row of rows) {
    const name = String(row.index_name);
    const entry = indexes.get(name) ?? { name, columns: [], unique: Boolean(Number(row.is_unique)) };
    entry.columns.push(String(row.column_name));
    indexes.set(name, entry);
  }
  return [...indexes.values()];
}

/**
 * Rows of `key_name`, `referenced_schema`, `referenced_table`, `column_name`, `referenced_column`,
 * `on_update`, `on_delete`, one per column in key order, as foreign keys. PostgreSQL's one-letter
 * actions are spelled out.
 */
export function groupForeignKeys(rows: CatalogRow[]): ForeignKeyDescription[] {
  const keys = new Map<string, ForeignKeyDescription>();
  for (const row of rows) {
    const name = String(row.key_name);
    const entry = keys.get(name) ?? {
      columns: [],
      references_schema: String(row.referenced_schema),
      references_table: String(row.referenced_table),
      references_columns: [],
      on_update: FK_ACTIONS[String(row.on_update)] ?? String(row.on_update),
      on_delete: FK_ACTIONS[String(row.on_delete)] ?? String(row.on_delete),
    };
    entry.columns.push(String(row.column_name));
    entry.references_columns.push(row.referenced_column === null ? '' : String(row.referenced_column));
    keys.set(name, entry);
  }
  return [...keys.values()];
}
