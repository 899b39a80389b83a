import { onConnection, schemaProperty, tableProperty, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { listForeignKeys as foreignKeysOf } from '../../db/catalog/schemaObjects.js';

export const listForeignKeys = defineTool({
  name: 'list_foreign_keys',
  title: 'List foreign keys',
  description: 'Foreign keys of a table in both directions: outgoing (it references others) and incoming (others reference it).',
  inputSchema: onConnection({ schema: schemaProperty, table: tableProperty }, ['table']),
  outputSchema: {
    type: 'object',
    properties: {
      schema: { type: 'string' },
      table: { type: 'string' },
      outgoing: { type: 'array', items: { type: 'object', properties: {} } },
      incoming: { type: 'array', items: { type: 'object', properties: {} } },
      is_truncated: { type: 'boolean' },
    },
    required: ['schema', 'table', 'outgoing', 'incoming', 'is_truncated'],
  },
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return foreignKeysOf(db, args.schema, args.table, ctx.signal);
  },
});
