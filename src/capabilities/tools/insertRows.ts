import { INSERTS, RESULTS } from '../../core/contract.js';
import { ToolError } from '../../core/errors.js';
import { classifyStatement } from '../../sql/classify.js';
import { insertSql } from '../../sql/insertSql.js';
import { SQL_DIALECTS } from '../../sql/dialects.js';
import { describeOrFail, onConnection, schemaProperty, tableProperty, useConnection } from '../connectionArgs.js';
import { runStatement } from '../runStatement.js';
import { boundValues } from '../statementArgs.js';
import { defineTool } from '../types.js';
import { integer, record, text } from '../outputSchema.js';

/** The rows as values in the first row's column order; every row must name the same columns. */
function rowValues(rows: Record<string, unknown>[]): { columns: string[]; values: unknown[][] } {
  const columns = Object.keys(rows[0] ?? {});
  if (columns.length === 0) throw new ToolError('invalid_argument', 'rows[0] names no column');
  if (rows.length * columns.length > INSERTS.maxValues) {
    throw new ToolError('invalid_argument', `the rows hold over ${INSERTS.maxValues} values; insert them in smaller batches`);
  }
  const values = rows.map((row, i) => {
    const keys = Object.keys(row);
    if (keys.length !== columns.length || keys.some((key) => !Object.hasOwn(rows[0]!, key))) {
      throw new ToolError('invalid_argument', `rows[${i}] must name the same columns as rows[0]`);
    }
    return columns.map((column) => row[column]);
  });
  return { columns, values };
}

export const insertRows = defineTool({
  name: 'insert_rows',
  title: 'Insert rows into a table',
  description: 'Inserts rows (objects of column → value, all with the same columns) into one table in one INSERT, once the user approves.',
  inputSchema: onConnection({
    schema: schemaProperty,
    table: tableProperty,
    rows: {
      type: 'array',
      description: 'Values are strings, numbers, booleans or null.',
      items: { type: 'object', properties: {} },
      minItems: 1,
      maxItems: INSERTS.maxRows,
    },
  }, ['table', 'rows']),
  outputSchema: record({ table: text, rows_affected: integer }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  scopes: ['tools:write'],
  async run(args, ctx) {
    ctx.progress(0, 1, 'Checking the rows');
    const { columns, values } = rowValues(args.rows);
    const { connection, db, privacy } = useConnection(ctx, args.connection_id, args.database);
    const bound = values.map((row, i) => boundValues(row, db.engine, `the values of rows[${i}]`));
    const table = await describeOrFail(db, args.schema, args.table, ctx.signal);
    const known = new Set(table.columns.map((c) => c.name));
    const unknown = columns.find((column) => !known.has(column));
    if (unknown !== undefined) throw new ToolError('invalid_argument', `the table ${table.name} has no column "${unknown}"; call describe_table`);
    const { sql, params } = insertSql({ schema: table.schema, table: table.name, columns, rows: bound }, SQL_DIALECTS[db.engine]);
    const { kind, reason } = classifyStatement(sql, db.engine);
    const result = await runStatement(ctx, connection, db, privacy, {
      tool: 'insert_rows',
      sql,
      kind,
      reason,
      params,
      maxRows: 1,
      timeoutMs: RESULTS.defaultTimeoutSeconds * 1000,
      consent: { rows: { table: `${table.schema}.${table.name}`, columns, shown: values.slice(0, INSERTS.shownRows), total: values.length } },
    });
    return { table: table.name, rows_affected: result.rows_affected };
  },
});
