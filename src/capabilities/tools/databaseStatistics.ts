import { databaseStatistics as statisticsOf } from '../../db/catalog/statistics.js';
import { onConnection, useConnection } from '../connectionArgs.js';
import { fromDriverError } from '../dbErrors.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';

/** A number, or null where the engine keeps none. */
const nullableNumber = {};

export const databaseStatistics = defineTool({
  name: 'database_statistics',
  title: 'Database statistics',
  description: 'Size, table and index counts, engine version, and the engine’s counters (cache hits, connections, uptime; pages on SQLite).',
  inputSchema: onConnection({}),
  outputSchema: {
    type: 'object',
    properties: {
      database: { type: 'string' },
      engine_version: { type: 'string' },
      size_bytes: nullableNumber,
      table_count: { type: 'integer' },
      index_count: { type: 'integer' },
      cache_hit_ratio: nullableNumber,
      connections: nullableNumber,
      max_connections: nullableNumber,
      uptime_seconds: nullableNumber,
      transactions_committed: nullableNumber,
      transactions_rolled_back: nullableNumber,
      deadlocks: nullableNumber,
      page_size: nullableNumber,
      page_count: nullableNumber,
      freelist_count: nullableNumber,
      journal_mode: {},
    },
    required: ['database', 'engine_version', 'size_bytes', 'table_count', 'index_count'],
  },
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return statisticsOf(db, ctx.signal).catch((error: unknown) => {
      throw fromDriverError(error);
    });
  },
});
