import { ROW_COUNT_SOURCES, TABLE_STATISTICS_LIMIT, tableStatistics as statisticsOf } from '../../db/catalog/statistics.js';
import { ToolError } from '../../core/errors.js';
import { describeOrFail, onConnection, schemaProperty, tableProperty, useConnection } from '../connectionArgs.js';
import { fromDriverError } from '../dbErrors.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { boolean, listOf, oneOfOrNull, orNull, record, text } from '../outputSchema.js';

export const tableStatistics = defineTool({
  name: 'table_statistics',
  title: 'Table statistics',
  description: `Rows (counted or estimated: row_count_source says which), sizes in bytes and maintenance counters of one table, or of a schema's tables (at most ${TABLE_STATISTICS_LIMIT}). Null where the engine keeps none.`,
  inputSchema: onConnection({ schema: schemaProperty, table: tableProperty }),
  outputSchema: record({
    schema: text,
    tables: listOf(
      record({
        table: text,
        estimated_rows: orNull('integer'),
        row_count_source: oneOfOrNull(ROW_COUNT_SOURCES),
        total_bytes: orNull('integer'),
        table_bytes: orNull('integer'),
        index_bytes: orNull('integer'),
        last_analyze: orNull('string'),
        last_autoanalyze: orNull('string'),
        last_vacuum: orNull('string'),
        last_autovacuum: orNull('string'),
        dead_tuples: orNull('integer'),
        seq_scans: orNull('integer'),
        index_scans: orNull('integer'),
        auto_increment: orNull('integer'),
        update_time: orNull('string'),
      }),
    ),
    is_truncated: boolean,
    notes: listOf(text),
  }),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    try {
      let schema = args.schema ?? db.defaultSchema();
      let table: string | undefined;
      if (args.table !== undefined) {
        const found = await describeOrFail(db, schema, args.table, ctx.signal);
        if (found.type === 'view') throw new ToolError('invalid_argument', `"${found.name}" is a view; table_statistics covers tables`);
        ({ schema, name: table } = found);
      } else if (!(await db.listSchemas(ctx.signal)).includes(schema)) {
        throw new ToolError('not_found', `no schema "${schema}"; call list_schemas`);
      }
      return { schema, ...(await statisticsOf(db, { schema, table, limit: TABLE_STATISTICS_LIMIT }, ctx.signal)) };
    } catch (error) {
      throw fromDriverError(error);
    }
  },
});
