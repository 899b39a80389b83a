import { ToolError } from '../../core/errors.js';
import { indexAdvice as adviseIndexes } from '../../db/analysis/queryPerformance.js';
import { boundValues, checkSqlSize, paramsProperty, sqlProperty } from '../statementArgs.js';
import { onConnection, schemaProperty, useConnection } from '../connectionArgs.js';
import { fromDriverError } from '../dbErrors.js';
import { explainableStatement } from '../explainable.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { integer, listOf, record, text } from '../outputSchema.js';

export const indexAdvice = defineTool({
  name: 'index_advice',
  title: 'Suggest indexes',
  description: 'Suggests CREATE INDEX statements for full scans in a query’s plan (or, on PostgreSQL without sql, the most scanned tables). Never runs them.',
  inputSchema: onConnection({
    schema: schemaProperty,
    sql: { ...sqlProperty, description: 'One query to advise on; without it, the whole workload.' },
    params: paramsProperty,
  }),
  outputSchema: record(
    {
      suggestions: listOf(
        record({ schema: text, table: text, columns: listOf(text), statement: text, reason: text, estimated_rows: integer }),
      ),
      scanned_tables: listOf(
        record({ schema: text, table: text, rows: integer, seq_scan: integer, seq_tup_read: integer, idx_scan: integer }),
      ),
      note: text,
    },
    ['scanned_tables', 'note'],
  ),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    if (args.sql !== undefined) checkSqlSize(args.sql);
    if (args.sql === undefined && args.params !== undefined) throw new ToolError('invalid_argument', 'params need sql');
    const { db, privacy } = useConnection(ctx, args.connection_id, args.database);
    if (args.sql !== undefined) {
      explainableStatement('index_advice', args.sql, db.engine);
      // Advice comes from the statement's plan, whose estimates answer what it filters on: refused as a run is.
      await privacy.statement(args.sql).catch((error: unknown) => {
        throw fromDriverError(error);
      });
    }
    const options = {
      ...(args.sql === undefined ? {} : { sql: args.sql }),
      params: boundValues(args.params ?? [], db.engine),
      schema: args.schema ?? db.defaultSchema(),
      signal: ctx.signal,
    };
    return adviseIndexes(db, options).catch((error: unknown) => {
      throw fromDriverError(privacy.failure(error, args.sql));
    });
  },
});
