import type { CatalogRow } from './catalogRead.js';
import type { ForeignKeyInfo, Listed } from './schemaObjects.js';

/** What the schema-object catalog queries share: the read they run as, the bound, the grouping of key columns. */

/** The most items one list of indexes, keys, views, routines or triggers holds (docs/catalogue.md). */
export const SCHEMA_OBJECTS_MAX_ITEMS = 1_000;

/** Rows for a query that returns one row per item: one more than the bound, to know there were more. */
export const ONE_ROW_PER_ITEM = SCHEMA_OBJECTS_MAX_ITEMS + 1;

/** At most SCHEMA_OBJECTS_MAX_ITEMS of `items`; truncated when rows or items were left out. */
export function bounded<T>(items: T[], truncated: boolean): Listed<T> {
  return { items: items.slice(0, SCHEMA_OBJECTS_MAX_ITEMS), truncated: truncated || items.length > SCHEMA_OBJECTS_MAX_ITEMS };
}

/** Consecutive rows sharing a key, as one item each; `add` folds a row into the item its first row made. */
export function groupRows<T>(rows: CatalogRow[], key: (row: CatalogRow) => string, make: (row: CatalogRow) => T, add: (item: T, row: CatalogRow) => void): T[] {
  const items: T[] = [];
  let lastKey: string | undefined;
  for (const row of rows) {
    const rowKey = key(row);
    if (rowKey !== lastKey) items.push(make(row));
    add(items[items.length - 1] as T, row);
    lastKey = rowKey;
  }
  return items;
}

/**
 * Rows of `is_outgoing`, `is_incoming`, `key_id` (the key, unique in the answer), `key_name`,
 * `schema_name`, `table_name`, `column_name`, `referenced_schema`, `referenced_table`,
 * `referenced_column`, `on_update`, `on_delete`, one per column in key order, as foreign keys in each
 * direction. A table's key on itself is both outgoing and incoming.
 */
export function foreignKeysOf(rows: CatalogRow[], truncated: boolean): { outgoing: ForeignKeyInfo[]; incoming: ForeignKeyInfo[]; truncated: boolean } {
  const keys = groupRows(
    rows,
    (row) => `${String(row.is_outgoing)}\n${String(row.is_incoming)}\n${String(row.key_id)}`,
    (row) => ({
      outgoing: Boolean(Number(row.is_outgoing)),
      incoming: Boolean(Number(row.is_incoming)),
      key: {
        name: row.key_name === null ? null : String(row.key_name),
        schema: String(row.schema_name),
        table: String(row.table_name),
        columns: [] as string[],
        referenced_schema: String(row.referenced_schema),
        referenced_table: String(row.referenced_table),
        referenced_columns: [] as string[],
        on_update: String(row.on_update),
        on_delete: String(row.on_delete),
      },
    }),
    ({ key }, row) => {
      key.columns.push(String(row.column_name));
      key.referenced_columns.push(String(row.referenced_column));
    },
  );
  const outgoing = bounded(keys.filter((k) => k.outgoing).map((k) => k.key), truncated);
  const incoming = bounded(keys.filter((k) => k.incoming).map((k) => k.key), truncated);
  return { outgoing: outgoing.items, incoming: incoming.items, truncated: outgoing.truncated || incoming.truncated };
}
