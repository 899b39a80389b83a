import { PERFORMANCE, slowQueries as readSlowQueries } from '../../db/analysis/queryPerformance.js';
import { onConnection, useConnection } from '../connectionArgs.js';
import { fromDriverError } from '../dbErrors.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';

export const slowQueries = defineTool({
  name: 'slow_queries',
  title: 'Slowest statements',
  description: 'The slowest statements from the server’s statistics (pg_stat_statements, performance_schema), or a note on how to enable them.',
  inputSchema: onConnection({
    order_by: { type: 'string', enum: ['total', 'mean'], default: 'total', description: 'Total or mean execution time.' },
    limit: { type: 'integer', minimum: 1, maximum: PERFORMANCE.slowQueriesMax, default: PERFORMANCE.slowQueriesDefault },
  }),
  outputSchema: {
    type: 'object',
    properties: {
      available: { type: 'boolean' },
      order_by: { type: 'string' },
      statements: { type: 'array', items: { type: 'object', properties: {} }, description: 'calls, total_ms, mean_ms, rows, query (normalised).' },
      note: { type: 'string' },
    },
    required: ['available', 'order_by', 'statements'],
  },
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
