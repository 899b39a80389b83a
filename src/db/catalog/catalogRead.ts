import { type Database, type ResultSet, type Rows, valuesOf } from '../database.js';
import { DATABASES, RESULTS } from '../../core/contract.js';

/** A catalog row by its columns' names: the aliases the statement gives them, in lower case on every engine. */
export type CatalogRow = Record<string, unknown>;

/**
 * A statement Sluice wrote itself (fixed text, values bound), run as a read on `db`, so that the token's
 * session share, the introspection deadline and cancellation apply as to any other read.
 */
function readCatalog(db: Database, sql: string, params: unknown[], signal: AbortSignal, maxRows: number) {
  return db.read(sql, { params, maxRows, maxBytes: RESULTS.capBytes, timeoutMs: DATABASES.introspectionTimeoutMs, signal });
}

/** The rows of a catalog read, and whether rows were left out past `maxRows`. */
export async function catalogResult(
  db: Database,
  sql: string,
  params: unknown[],
  signal: AbortSignal,
  maxRows: number = RESULTS.catalogRows,
): Promise<{ rows: unknown[][]; truncated: boolean }> {
  const result = await readCatalog(db, sql, params, signal, maxRows);
  return { rows: valuesOf(result.rows), truncated: result.truncated };
}

/** `catalogResult` with each row read by its columns' names, never by position. */
export async function catalogRows(
  db: Database,
  sql: string,
  params: unknown[],
  signal: AbortSignal,
  maxRows: number = RESULTS.catalogRows,
): Promise<{ rows: CatalogRow[]; truncated: boolean }> {
  const result = await readCatalog(db, sql, params, signal, maxRows);
  return { rows: namedRows(result), truncated: result.truncated };
}

/** A result's rows, each keyed by its columns' names. */
export function namedRows(result: Pick<ResultSet<Rows>, 'columns' | 'rows'>): CatalogRow[] {
  const names = result.columns.map((column) => column.name);
  return valuesOf(result.rows).map((values) => Object.fromEntries(names.map((name, i) => [name, values[i]])));
}

/** The rows of `catalogResult`. */
export async function catalogRead(
  db: Database,
  sql: string,
  params: unknown[],
  signal: AbortSignal,
  maxRows: number = RESULTS.catalogRows,
): Promise<unknown[][]> {
  return (await catalogResult(db, sql, params, signal, maxRows)).rows;
}

/** A catalog value as a number: drivers hand large integers and decimals over as text; null stays null. */
export function numberOrNull(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}

/** A catalog value as text, or null. */
export function textOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

/** `part / whole` to four decimals; null when there is nothing to divide. */
export function ratio(part: number | null, whole: number | null): number | null {
  if (part === null || whole === null || whole <= 0) return null;
  return Math.round((part / whole) * 10_000) / 10_000;
}
