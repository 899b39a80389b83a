import type { StatementKind } from '../db/classify.js';
import type { ResultSet, Rows } from '../db/database.js';
import type { ObjectSchema } from './schema.js';

export const resultSetSchema: ObjectSchema = {
  type: 'object',
  properties: {
    columns: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, type: { type: 'string' } } },
    },
    rows: {
      type: 'array',
      description: 'One array of values per row, in column order.',
      items: { type: 'array', items: {} },
    },
    row_count: { type: 'integer' },
    rows_affected: { type: 'integer' },
    execution_time_ms: { type: 'number' },
    is_truncated: { type: 'boolean', description: 'True when more rows exist than max_rows allowed.' },
    statement_kind: { type: 'string', enum: ['read', 'write', 'ddl', 'destructive'] },
  },
  required: [
    'columns',
    'rows',
    'row_count',
    'rows_affected',
    'execution_time_ms',
    'is_truncated',
    'statement_kind',
  ],
};

export function toResultSet(result: ResultSet<Rows>, kind: StatementKind, executionTimeMs: number) {
  return {
    columns: result.columns,
    rows: result.rows,
    row_count: result.rows.length,
    rows_affected: result.rowsAffected,
    execution_time_ms: Math.round(executionTimeMs * 100) / 100,
    is_truncated: result.truncated,
    statement_kind: kind,
  };
}
