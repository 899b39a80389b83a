import { onConnection, schemaProperty, tableProperty, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { listIndexes as indexesOf } from '../../db/catalog/schemaObjects.js';
import { boolean, listOf, orNull, record, text } from '../outputSchema.js';

export const listIndexes = defineTool({
  name: 'list_indexes',
  title: 'List indexes',
  description: 'Indexes of one table, or of every table in a schema: columns in order, unique, primary, method and partial predicate.',
  inputSchema: onConnection({ schema: schemaProperty, table: tableProperty }),
  outputSchema: record({
    indexes: listOf(
      record({
        schema: text,
        table: text,
        name: text,
        columns: listOf(text),
        unique: boolean,
        primary: boolean,
        method: orNull('string'),
        predicate: orNull('string'),
        definition: orNull('string'),
      }),
    ),
    is_truncated: boolean,
  }),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return indexesOf(db, args.schema, args.table, ctx.signal);
  },
});
