import { onConnection, schemaProperty, tableProperty, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { listTriggers as triggersOf } from '../../db/catalog/schemaObjects.js';

export const listTriggers = defineTool({
  name: 'list_triggers',
  title: 'List triggers',
  description: 'Triggers of one table, or of every table in a schema: timing, events and definition.',
  inputSchema: onConnection({ schema: schemaProperty, table: tableProperty }),
  outputSchema: {
    type: 'object',
    properties: { triggers: { type: 'array', items: { type: 'object', properties: {} } }, is_truncated: { type: 'boolean' } },
    required: ['triggers', 'is_truncated'],
  },
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return triggersOf(db, args.schema, args.table, ctx.signal);
  },
});
