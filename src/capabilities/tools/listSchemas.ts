import { onConnection, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';

export const listSchemas = defineTool({
  name: 'list_schemas',
  title: 'List schemas',
  description: 'Lists the schemas of a connection (on SQLite, main and any attached databases; on MySQL, its databases).',
  inputSchema: onConnection({}),
  outputSchema: {
    type: 'object',
    properties: { schemas: { type: 'array', items: { type: 'string' } }, default_schema: { type: 'string' } },
    required: ['schemas', 'default_schema'],
  },
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return { schemas: await db.listSchemas(ctx.signal), default_schema: db.defaultSchema() };
  },
});
