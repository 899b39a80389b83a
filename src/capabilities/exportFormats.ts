/** How `export_data` writes one row: CSV (RFC 4180) and JSON Lines. */

export type ExportFormat = 'csv' | 'jsonl' | 'parquet';

export const EXPORT_FORMATS: readonly ExportFormat[] = ['csv', 'jsonl', 'parquet'];

/** A value as CSV text: null empty, objects (JSON columns) as their JSON, the rest as their text. */
function csvText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** One CSV record (RFC 4180): a field holding a comma, a double quote, CR or LF is quoted, its quotes doubled. */
export function csvRecord(values: readonly unknown[]): string {
  const fields = values.map((value) => {
    const text = csvText(value);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  });
  return `${fields.join(',')}\r\n`;
}

/** One JSON Lines record: an object keyed by column name. */
export function jsonRecord(names: readonly string[], values: readonly unknown[]): string {
  // fromEntries defines each key, so a column named __proto__ is a key like any other.
  return `${JSON.stringify(Object.fromEntries(names.map((name, i) => [name, values[i] ?? null])))}\n`;
}

/**
 * Column names made unique for formats that key by name (`SELECT a.id, b.id` → `id`, `id_2`): the
 * first keeps its name, a later one gets the first free `_n` suffix.
 */
export function uniqueNames(names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    let unique = name;
    for (let n = 2; taken.has(unique); n++) unique = `${name}_${n}`;
    taken.add(unique);
    return unique;
  });
}
