import { databaseStatistics as statisticsOf } from '../../db/catalog/statistics.js';
import { onConnection, useConnection } from '../connectionArgs.js';
import { fromDriverError } from '../dbErrors.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { integer, orNull, record, text } from '../outputSchema.js';

export const databaseStatistics = defineTool({
  name: 'database_statistics',
  title: 'Database statistics',
  description: 'Size, table and index counts, engine version, and the engine’s counters (cache hits, connections, uptime; pages on SQLite).',
  inputSchema: onConnection({}),
  outputSchema: record({
    database: text,
    engine_version: text,
    size_bytes: orNull('integer'),
    table_count: integer,
    index_count: integer,
    cache_hit_ratio: orNull('number'),
    connections: orNull('integer'),
    max_connections: orNull('integer'),
    uptime_seconds: orNull('integer'),
    transactions_committed: orNull('integer'),
    transactions_rolled_back: orNull('integer'),
    deadlocks: orNull('integer'),
    page_size: orNull('integer'),
    page_count: orNull('integer'),
    freelist_count: orNull('integer'),
    journal_mode: orNull('string'),
  }),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return statisticsOf(db, ctx.signal).catch((error: unknown) => {
      throw fromDriverError(error);
    });
  },
});
