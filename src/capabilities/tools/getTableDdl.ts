import { ToolError } from '../../core/errors.js';
import { onConnection, schemaProperty, tableProperty, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { record, text } from '../outputSchema.js';

export const getTableDdl = defineTool({
  name: 'get_table_ddl',
  title: 'Get table DDL',
  description: 'The CREATE statements of a table or view, with its indexes and triggers.',
  inputSchema: onConnection({ table: tableProperty, schema: schemaProperty }, ['table']),
  outputSchema: record({ schema: text, table: text, ddl: text }),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    const schema = args.schema ?? db.defaultSchema();
    const ddl = await db.tableDdl(schema, args.table, ctx.signal);
    if (ddl === undefined)
      throw new ToolError('not_found', `no table or view named "${args.table}"; call list_tables`);
    return { schema, table: args.table, ddl };
  },
});
