import type { StatementKind } from '../sql/classify.js';
import type { ResultSet, Rows } from '../db/database.js';
import { anyValue, boolean, integer, listOf, number, oneOf, record, text } from './outputSchema.js';
import { RESULTS } from '../core/contract.js';

/** The `max_bytes` argument of every tool that returns rows. */
export const maxBytesProperty = {
  type: 'integer',
  minimum: 1_024,
  maximum: RESULTS.capBytes,
  default: RESULTS.defaultBytes,
  description: 'Size cap of the whole answer in bytes; rows and columns past it are left out, values over 64 KiB cut.',
} as const;

/** Every kind a statement is classified as (sql/classify.ts). */
export const STATEMENT_KINDS: readonly StatementKind[] = ['read', 'write', 'ddl', 'destructive'];

/** A result column: its name and the engine's type name. */
export const columnSchema = record({ name: text, type: text });

export const resultSetSchema = record(
  {
    columns: listOf(columnSchema),
    rows: { ...listOf(listOf(anyValue)), description: 'One array of values per row, in column order.' },
    row_count: integer,
    rows_affected: integer,
    execution_time_ms: number,
    is_truncated: { ...boolean, description: 'True when rows were left out or values were cut.' },
    truncated_reason: {
      ...oneOf(['none', 'max_rows', 'max_bytes', 'max_tokens', 'cell_bytes']),
      description: 'Why: more rows than max_rows, rows past max_bytes or past max_tokens of text, or only over-long values cut.',
    },
    cells_truncated: { ...integer, description: 'Values cut to the cell limit, each ending in a "…[cut: …]" marker.' },
    columns_left_out: { ...integer, description: 'Columns past max_bytes, left out with their values (only when some were).' },
    values_as_text: { ...integer, description: 'JSON values too deep or too long for JSON, given as their text (only when some were).' },
    statement_kind: oneOf(STATEMENT_KINDS),
    next_cursor: {
      ...text,
      description: 'Rows were left out and the read is held open: pass it as cursor to get the next rows of the same snapshot.',
    },
  },
  ['columns_left_out', 'values_as_text', 'next_cursor'],
);

export function toResultSet(result: ResultSet<Rows>, kind: StatementKind, executionTimeMs: number) {
  const cellsCut = result.cellsCut ?? 0;
  return {
    columns: result.columns.map(({ name, type }) => ({ name, type })),
    rows: result.rows,
    row_count: result.rows.length,
    rows_affected: result.rowsAffected,
    execution_time_ms: Math.round(executionTimeMs * 100) / 100,
    is_truncated: result.truncated || cellsCut > 0,
    truncated_reason: result.truncated ? (result.truncatedBy ?? 'max_rows') : cellsCut > 0 ? 'cell_bytes' : 'none',
    cells_truncated: cellsCut,
    ...(result.columnsLeftOut ? { columns_left_out: result.columnsLeftOut } : {}),
    ...(result.valuesAsText ? { values_as_text: result.valuesAsText } : {}),
    statement_kind: kind,
  };
}
