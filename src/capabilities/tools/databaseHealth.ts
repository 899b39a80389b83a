import { databaseHealth as healthOf } from '../../db/analysis/health.js';
import { onConnection, useConnection } from '../connectionArgs.js';
import { fromDriverError } from '../dbErrors.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { boolean, listOf, oneOf, record, text } from '../outputSchema.js';

export const databaseHealth = defineTool({
  name: 'database_health',
  title: 'Database health',
  description: 'Health findings: missing primary keys, duplicate or unused indexes, never-analyzed tables, long transactions, bloat, integrity.',
  inputSchema: onConnection({}),
  outputSchema: record({
    checks: listOf(text),
    findings: listOf(record({ check: text, severity: oneOf(['info', 'warning']), object: text, detail: text }, ['object'])),
    is_truncated: boolean,
  }),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return healthOf(db, ctx.signal).catch((error: unknown) => {
      throw fromDriverError(error);
    });
  },
});
