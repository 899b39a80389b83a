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
export function groupRows<T>(rows: unknown[][], key: (row: unknown[]) => string, make: (row: unknown[]) => T, add: (item: T, row: unknown[]) => void): T[] {
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
 * Rows of (outgoing, incoming, key, name, schema, table, column, referenced schema, referenced table,
 * referenced column, on update, on delete), one per column in key order, as foreign keys in each
 * direction. A table's key on itself is both outgoing and incoming.
 */
export function foreignKeysOf(rows: unknown[][], truncated: boolean): { outgoing: ForeignKeyInfo[]; incoming: ForeignKeyInfo[]; truncated: boolean } {
  const keys = groupRows(
    rows,
    (row) => `${String(row[0])}\n${String(row[1])}\n${String(row[2])}`,
    ([outgoing, incoming, , name, schema, table, , refSchema, refTable, , onUpdate, onDelete]) => ({
      outgoing: Boolean(Number(outgoing)),
      incoming: Boolean(Number(incoming)),
      key: {
        name: name === null ? null : String(name),
        schema: String(schema),
        table: String(table),
        columns: [] as string[],
        referenced_schema: String(refSchema),
        referenced_table: String(refTable),
        referenced_columns: [] as string[],
        on_update: String(onUpdate),
        on_delete: String(onDelete),
      },
    }),
    ({ key }, row) => {
      key.columns.push(String(row[6]));
      key.referenced_columns.push(String(row[9]));
    },
  );
  const outgoing = bounded(keys.filter((k) => k.outgoing).map((k) => k.key), truncated);
  const incoming = bounded(keys.filter((k) => k.incoming).map((k) => k.key), truncated);
  return { outgoing: outgoing.items, incoming: incoming.items, truncated: outgoing.truncated || incoming.truncated };
}
