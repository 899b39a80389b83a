import { connectionIdProperty, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { listOf, record, text } from '../outputSchema.js';

export const listDatabases = defineTool({
  name: 'list_databases',
  title: 'List databases',
  description: 'Lists the databases reachable through a connection (on SQLite, the database file).',
  inputSchema: {
    type: 'object',
    properties: { connection_id: connectionIdProperty },
    required: ['connection_id'],
    additionalProperties: false,
  },
  outputSchema: record({ databases: listOf(text) }),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id);
    return { databases: await db.listDatabases(ctx.signal) };
  },
});
