import { onConnection, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { listOf, record, text } from '../outputSchema.js';

export const listSchemas = defineTool({
  name: 'list_schemas',
  title: 'List schemas',
  description: 'Lists the schemas of a connection (on SQLite, main and any attached databases; on MySQL, its databases).',
  inputSchema: onConnection({}),
  outputSchema: record({ schemas: listOf(text), default_schema: text }),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return { schemas: await db.listSchemas(ctx.signal), default_schema: db.defaultSchema() };
  },
});
