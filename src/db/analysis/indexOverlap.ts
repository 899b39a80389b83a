import type { HealthFinding } from './healthFindings.js';

/**
 * An index as the overlap checks compare it. `columns` are its key columns (or expressions) in order;
 * indexes of different `kind` (access method, predicate) never overlap; `leadingPrefixServes` says a
 * search on a leading part of the key can use it (B-trees).
 */
export type IndexShape = {
  schema: string;
  table: string;
  name: string;
  unique: boolean;
  columns: string[];
  kind: string;
  leadingPrefixServes: boolean;
};

const sameKey = (a: string[], b: string[]) => a.length === b.length && a.every((c, i) => c === b[i]);
const leadingPart = (a: string[], b: string[]) => a.length < b.length && a.every((c, i) => c === b[i]);
const named = (index: IndexShape) => `${index.schema}.${index.table}.${index.name}`;
const key = (index: IndexShape) => `${index.name} (${index.columns.join(', ')})`;

/**
 * Duplicate indexes (the same key on the same table: a warning, on the one that is not unique or else the
 * later by name) and redundant ones (a non-unique B-tree whose key leads another's: info).
 */
export function overlappingIndexes(indexes: IndexShape[]): { duplicates: HealthFinding[]; redundant: HealthFinding[] } {
  const duplicates: HealthFinding[] = [];
  const redundant: HealthFinding[] = [];
  const byTable = new Map<string, IndexShape[]>();
  for (const index of indexes) {
    const group = JSON.stringify([index.schema, index.table, index.kind]);
    byTable.set(group, [...(byTable.get(group) ?? []), index]);
  }
  for (const group of byTable.values()) {
    const sorted = [...group].sort((a, b) => Number(b.unique) - Number(a.unique) || (a.name < b.name ? -1 : 1));
    for (const [n, index] of sorted.entries()) {
      const twin = sorted.slice(0, n).find((other) => sameKey(other.columns, index.columns));
      if (twin) {
        duplicates.push({ check: 'duplicate_indexes', severity: 'warning', object: named(index), detail: `same key as ${key(twin)}` });
        continue;
      }
      const wider = index.unique || !index.leadingPrefixServes ? undefined : sorted.find((other) => leadingPart(index.columns, other.columns));
      if (wider) redundant.push({ check: 'redundant_indexes', severity: 'info', object: named(index), detail: `${key(index)} leads ${key(wider)}` });
    }
  }
  return { duplicates, redundant };
}

/** One key column of an index, as catalogs list them: the index's fields and the column. */
export type KeyColumn = Omit<IndexShape, 'columns'> & { column: string };

/** Indexes from their key columns, listed in key order. */
export function indexShapes(keyColumns: KeyColumn[]): IndexShape[] {
  const shapes = new Map<string, IndexShape>();
  for (const { column, ...index } of keyColumns) {
    const id = JSON.stringify([index.schema, index.table, index.name]);
    const shape = shapes.get(id) ?? { ...index, columns: [] };
    shape.columns.push(column);
    shapes.set(id, shape);
  }
  return [...shapes.values()];
}
