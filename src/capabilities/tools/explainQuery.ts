import { ToolError } from '../../core/errors.js';
import { boundValues, checkSqlSize, paramsProperty, sqlProperty, timeoutSecondsProperty } from '../statementArgs.js';
import { onConnection, useConnection } from '../connectionArgs.js';
import { fromDriverError } from '../dbErrors.js';
import { explainableStatement } from '../explainable.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { RESULTS } from '../../core/contract.js';

export const explainQuery = defineTool({
  name: 'explain_query',
  title: 'Explain a query plan',
  description: 'Shows the query plan of one statement. analyze: true runs a read-only statement (rolled back) and adds measured time and rows.',
  inputSchema: onConnection({
    sql: sqlProperty,
    params: paramsProperty,
    analyze: { type: 'boolean', default: false, description: 'PostgreSQL and MySQL/MariaDB only.' },
    timeout_seconds: timeoutSecondsProperty,
  }, ['sql']),
  outputSchema: {
    type: 'object',
    properties: {
      statement_kind: { type: 'string' },
      plan: { type: 'string', description: 'The plan as indented text.' },
      columns: { type: 'array', items: { type: 'object', properties: {} } },
      rows: { type: 'array', items: { type: 'array', items: {} } },
      actual: { type: 'object', description: 'With analyze: execution_ms and rows, null where the engine does not report them.', properties: {} },
    },
    required: ['statement_kind', 'plan', 'columns', 'rows'],
  },
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    checkSqlSize(args.sql);
    const { db } = useConnection(ctx, args.connection_id, args.database);
    const { kind } = explainableStatement('explain_query', args.sql, db.engine);
    const analyze = args.analyze ?? false;
    if (analyze && kind !== 'read') throw new ToolError('invalid_argument', 'analyze runs only read-only statements; explain a write without it');
    const options = {
      params: boundValues(args.params ?? [], db.engine),
      analyze,
      timeoutMs: (args.timeout_seconds ?? RESULTS.defaultTimeoutSeconds) * 1000,
      signal: ctx.signal,
    };
    const result = await db.explain(args.sql, options).catch((error: unknown) => {
      throw fromDriverError(error);
    });
    const plan = planText(
      result.columns.map((c) => c.name),
      result.rows,
    );
    return { statement_kind: kind, plan, columns: result.columns, rows: result.rows, ...(result.actual ? { actual: result.actual } : {}) };
  },
});

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
