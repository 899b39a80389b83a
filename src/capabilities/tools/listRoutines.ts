import { onConnection, schemaProperty, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { listRoutines as routinesOf } from '../../db/catalog/schemaObjects.js';

export const listRoutines = defineTool({
  name: 'list_routines',
  title: 'List functions and procedures',
  description: 'User-defined functions and procedures of a schema: kind, argument signature, return type and language.',
  inputSchema: onConnection({ schema: schemaProperty }),
  outputSchema: {
    type: 'object',
    properties: {
      routines: { type: 'array', items: { type: 'object', properties: {} } },
      is_truncated: { type: 'boolean' },
      note: { type: 'string' },
    },
    required: ['routines', 'is_truncated'],
  },
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return routinesOf(db, args.schema, ctx.signal);
  },
});
