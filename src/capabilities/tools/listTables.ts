import { onConnection, schemaProperty, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { listOf, oneOf, record, text } from '../outputSchema.js';

export const listTables = defineTool({
  name: 'list_tables',
  title: 'List tables and views',
  description: 'Lists the tables and views of a connection, in one schema or in all of them.',
  inputSchema: onConnection({ schema: schemaProperty }),
  outputSchema: record({ tables: listOf(record({ schema: text, name: text, type: oneOf(['table', 'view']) })) }),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return { tables: await db.listTables(args.schema, ctx.signal) };
  },
});
