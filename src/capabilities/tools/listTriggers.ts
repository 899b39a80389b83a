import { onConnection, schemaProperty, tableProperty, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { listTriggers as triggersOf } from '../../db/catalog/schemaObjects.js';
import { boolean, listOf, oneOf, record, text } from '../outputSchema.js';

export const listTriggers = defineTool({
  name: 'list_triggers',
  title: 'List triggers',
  description: 'Triggers of one table, or of every table in a schema: timing, events and definition.',
  inputSchema: onConnection({ schema: schemaProperty, table: tableProperty }),
  outputSchema: record({
    triggers: listOf(
      record({
        schema: text,
        table: text,
        name: text,
        timing: oneOf(['BEFORE', 'AFTER', 'INSTEAD OF']),
        events: listOf(oneOf(['INSERT', 'UPDATE', 'DELETE', 'TRUNCATE'])),
        definition: text,
      }),
    ),
    is_truncated: boolean,
  }),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return triggersOf(db, args.schema, args.table, ctx.signal);
  },
});
