import { PERFORMANCE, slowQueries as readSlowQueries } from '../../db/analysis/queryPerformance.js';
import { onConnection, useConnection } from '../connectionArgs.js';
import { fromDriverError } from '../dbErrors.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { boolean, integer, listOf, number, oneOf, record, text } from '../outputSchema.js';

export const slowQueries = defineTool({
  name: 'slow_queries',
  title: 'Slowest statements',
  description: 'The slowest statements from the server’s statistics (pg_stat_statements, performance_schema), or a note on how to enable them.',
  inputSchema: onConnection({
    order_by: { type: 'string', enum: ['total', 'mean'], default: 'total', description: 'Total or mean execution time.' },
    limit: { type: 'integer', minimum: 1, maximum: PERFORMANCE.slowQueriesMax, default: PERFORMANCE.slowQueriesDefault },
  }),
  outputSchema: record(
    {
      available: boolean,
      order_by: oneOf(['total', 'mean']),
      statements: listOf(record({ calls: integer, total_ms: number, mean_ms: number, rows: integer, query: { ...text, description: 'Normalised.' } })),
      note: text,
    },
    ['note'],
  ),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    const orderBy = args.order_by ?? 'total';
    const found = await readSlowQueries(db, { orderBy, limit: args.limit ?? PERFORMANCE.slowQueriesDefault, signal: ctx.signal }).catch(
      (error: unknown) => {
        throw fromDriverError(error);
      },
    );
    return { available: found.available, order_by: orderBy, statements: found.statements, ...(found.note ? { note: found.note } : {}) };
  },
});
