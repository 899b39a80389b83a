import { onConnection, schemaProperty, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { viewDefinition } from '../../db/catalog/schemaObjects.js';
import { boolean, record, text } from '../outputSchema.js';

export const getViewDefinition = defineTool({
  name: 'get_view_definition',
  title: 'Get a view’s definition',
  description: 'The SELECT a view (or materialized view) is defined by.',
  inputSchema: onConnection({
    schema: schemaProperty,
    view: { type: 'string', description: 'View name, unquoted.', minLength: 1, maxLength: 256 },
  }, ['view']),
  outputSchema: record({ schema: text, name: text, materialized: boolean, definition: text }),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return viewDefinition(db, args.schema, args.view, ctx.signal);
  },
});
