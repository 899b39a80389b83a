import { onConnection, schemaProperty, tableProperty, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { listIndexes as indexesOf } from '../../db/catalog/schemaObjects.js';

export const listIndexes = defineTool({
  name: 'list_indexes',
  title: 'List indexes',
  description: 'Indexes of one table, or of every table in a schema: columns in order, unique, primary, method and partial predicate.',
  inputSchema: onConnection({ schema: schemaProperty, table: tableProperty }),
  outputSchema: {
    type: 'object',
    properties: { indexes: { type: 'array', items: { type: 'object', properties: {} } }, is_truncated: { type: 'boolean' } },
    required: ['indexes', 'is_truncated'],
  },
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return indexesOf(db, args.schema, args.table, ctx.signal);
  },
});
