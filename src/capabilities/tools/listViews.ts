import { onConnection, schemaProperty, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { listViews as viewsOf } from '../../db/catalog/schemaObjects.js';
import { boolean, listOf, record, text } from '../outputSchema.js';

export const listViews = defineTool({
  name: 'list_views',
  title: 'List views',
  description: 'Views of a schema (materialized views too, on PostgreSQL); get_view_definition gives one’s query.',
  inputSchema: onConnection({ schema: schemaProperty }),
  outputSchema: record({ views: listOf(record({ schema: text, name: text, materialized: boolean })), is_truncated: boolean }),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return viewsOf(db, args.schema, ctx.signal);
  },
});
