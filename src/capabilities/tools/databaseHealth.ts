import { databaseHealth as healthOf } from '../../db/analysis/health.js';
import { onConnection, useConnection } from '../connectionArgs.js';
import { fromDriverError } from '../dbErrors.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';

export const databaseHealth = defineTool({
  name: 'database_health',
  title: 'Database health',
  description: 'Health findings: missing primary keys, duplicate or unused indexes, never-analyzed tables, long transactions, bloat, integrity.',
  inputSchema: onConnection({}),
  outputSchema: {
    type: 'object',
    properties: {
      checks: { type: 'array', items: { type: 'string' } },
      findings: { type: 'array', items: { type: 'object', properties: {} } },
      is_truncated: { type: 'boolean' },
    },
    required: ['checks', 'findings', 'is_truncated'],
  },
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return healthOf(db, ctx.signal).catch((error: unknown) => {
      throw fromDriverError(error);
    });
  },
});
