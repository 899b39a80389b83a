import { ToolError } from '../../core/errors.js';
import { boundValues, checkSqlSize, paramsProperty, sqlProperty, timeoutSecondsProperty } from '../statementArgs.js';
import { onConnection, useConnection } from '../connectionArgs.js';
import { fromDriverError } from '../dbErrors.js';
import { explainableStatement } from '../explainable.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { RESULTS } from '../../core/contract.js';
import { anyValue, listOf, oneOf, orNull, record, text } from '../outputSchema.js';
import { columnSchema, STATEMENT_KINDS } from '../resultSet.js';

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
  outputSchema: record(
    {
      statement_kind: oneOf(STATEMENT_KINDS),
      plan: { ...text, description: 'The plan as indented text.' },
      columns: listOf(columnSchema),
      rows: listOf(listOf(anyValue)),
      actual: {
        ...record({ execution_ms: orNull('number'), rows: orNull('integer') }),
        description: 'With analyze: what the run measured, null where the engine does not report it.',
      },
    },
    ['actual'],
  ),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    checkSqlSize(args.sql);
    const { db, privacy } = useConnection(ctx, args.connection_id, args.database);
    const { kind } = explainableStatement('explain_query', args.sql, db.engine);
    // A plan shows no row, but its run's counts answer whatever the statement asks: the same refusals as a run.
    await privacy.statement(args.sql).catch((error: unknown) => {
      throw fromDriverError(error);
    });
    const analyze = args.analyze ?? false;
    if (analyze && kind !== 'read') throw new ToolError('invalid_argument', 'analyze runs only read-only statements; explain a write without it');
    const options = {
      params: boundValues(args.params ?? [], db.engine),
      analyze,
      timeoutMs: (args.timeout_seconds ?? RESULTS.defaultTimeoutSeconds) * 1000,
      signal: ctx.signal,
    };
    const result = await db.explain(args.sql, options).catch((error: unknown) => {
      throw fromDriverError(privacy.failure(error, args.sql));
    });
    const plan = planText(
      result.columns.map((c) => c.name),
      result.rows,
    );
    return { statement_kind: kind, plan, columns: result.columns.map(({ name, type }) => ({ name, type })), rows: result.rows, ...(result.actual ? { actual: result.actual } : {}) };
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
