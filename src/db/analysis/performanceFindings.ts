import type { CatalogRow } from '../catalog/catalogRead.js';

/** What slow_queries and index_advice report, and the bounds every engine keeps (a leaf: the engine files import it). */

/** The limits of slow_queries and index_advice (docs/catalogue.md). */
export const PERFORMANCE = Object.freeze({
  slowQueriesDefault: 10,
  slowQueriesMax: 50,
  /** Characters of each statement's normalised text. */
  queryTextChars: 2_000,
  /** A full scan of a table with fewer estimated rows is not worth an index. */
  indexAdviceMinRows: 1_000,
  /** Columns of one proposed index, at most. */
  indexAdviceColumns: 3,
  /** Tables listed by whole-workload advice, at most. */
  workloadTables: 10,
});

export type SlowStatement = { calls: number; total_ms: number; mean_ms: number; rows: number; query: string };

/** One row of the engine's statement statistics (`calls`, `total_ms`, `mean_ms`, `row_count`, `query_text`) as a SlowStatement. */
export function slowStatement(row: CatalogRow): SlowStatement {
  return {
    calls: Number(row.calls),
    total_ms: Number(Number(row.total_ms).toFixed(3)),
    mean_ms: Number(Number(row.mean_ms).toFixed(3)),
    rows: Number(row.row_count),
    query: String(row.query_text),
  };
}

/** The statistics' slowest statements, or (available: false) why there are none and how to turn them on. */
export type SlowQueries = { available: boolean; statements: SlowStatement[]; note?: string };

export type SlowQueriesOptions = { orderBy: 'total' | 'mean'; limit: number; signal: AbortSignal };

/** One index Sluice proposes; the user may run `statement`, Sluice never does. */
export type IndexSuggestion = {
  schema: string;
  table: string;
  columns: string[];
  statement: string;
  reason: string;
  estimated_rows: number;
};

/** A table the workload reads mostly by full scans (PostgreSQL's statistics, without a query). */
export type ScannedTable = { schema: string; table: string; rows: number; seq_scan: number; seq_tup_read: number; idx_scan: number };

export type IndexAdvice = { suggestions: IndexSuggestion[]; scanned_tables?: ScannedTable[]; note?: string };

export type IndexAdviceOptions = { sql?: string; params: unknown[]; schema: string; signal: AbortSignal };
