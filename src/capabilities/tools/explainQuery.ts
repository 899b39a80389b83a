import { classifyStatement } from '../../db/classify.js';
import { ToolError } from '../../core/errors.js';
import { connectionIdProperty, useConnection } from '../connectionArgs.js';
import { fromDriverError } from '../dbErrors.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import type { Tool } from '../types.js';
import { RESULTS } from '../../core/contract.js';

type Args = { connection_id: string; sql: string };

const EXPLAINABLE = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE', 'INSERT', 'UPDATE', 'DELETE', 'REPLACE', 'MERGE']);

export const explainQuery: Tool<Args> = {
  name: 'explain_query',
  title: 'Explain a query plan',
  description: 'Shows how the database would run one statement (its query plan), without running it.',
  inputSchema: {
    type: 'object',
    properties: {
      connection_id: connectionIdProperty,
      sql: {
        type: 'string',
        description: 'Exactly one SQL statement.',
        minLength: 1,
        maxLength: RESULTS.maxSqlBytes,
      },
    },
    required: ['connection_id', 'sql'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      statement_kind: { type: 'string' },
      plan: { type: 'string', description: 'The plan as indented text.' },
      columns: { type: 'array', items: { type: 'object', properties: {} } },
      rows: { type: 'array', items: { type: 'array', items: {} } },
    },
    required: ['statement_kind', 'plan', 'columns', 'rows'],
  },
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id);
    const { kind, verb } = classifyStatement(args.sql, db.engine);
    // EXPLAIN and ANALYZE themselves are not explained: EXPLAIN ANALYZE would run the statement.
    if (!EXPLAINABLE.has(verb)) {
      throw new ToolError('invalid_argument', 'explain_query explains SELECT, WITH, VALUES, INSERT, UPDATE, DELETE, REPLACE and MERGE statements');
    }
    const result = await db.explain(args.sql, ctx.signal).catch((error: unknown) => {
      throw fromDriverError(error);
    });
    const plan = planText(
      result.columns.map((c) => c.name),
      result.rows,
    );
    return { statement_kind: kind, plan, columns: result.columns, rows: result.rows };
  },
};

/** SQLite's EXPLAIN QUERY PLAN rows (id, parent, notused, detail) as an indented tree; other plans as a header line and one line per row. */
function planText(columns: string[], rows: unknown[][]): string {
  const id = columns.indexOf('id');
  const parent = columns.indexOf('parent');
  const detail = columns.indexOf('detail');
  if (id < 0 || parent < 0 || detail < 0) return [columns, ...rows].map((r) => r.join(' | ')).join('\n');
  const depth = new Map<unknown, number>([[0, -1]]);
  return rows
    .map((row) => {
      const level = (depth.get(row[parent]) ?? -1) + 1;
      depth.set(row[id], level);
      return `${'  '.repeat(level)}${String(row[detail])}`;
    })
    .join('\n');
}
