import { onConnection, schemaProperty, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { listRoutines as routinesOf } from '../../db/catalog/schemaObjects.js';
import { boolean, listOf, oneOf, orNull, record, text } from '../outputSchema.js';

export const listRoutines = defineTool({
  name: 'list_routines',
  title: 'List functions and procedures',
  description: 'User-defined functions and procedures of a schema: kind, argument signature, return type and language.',
  inputSchema: onConnection({ schema: schemaProperty }),
  outputSchema: record(
    {
      routines: listOf(
        record({
          schema: text,
          name: text,
          kind: oneOf(['function', 'procedure', 'aggregate', 'window']),
          signature: text,
          return_type: orNull('string'),
          language: orNull('string'),
        }),
      ),
      is_truncated: boolean,
      note: text,
    },
    ['note'],
  ),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return routinesOf(db, args.schema, ctx.signal);
  },
});
