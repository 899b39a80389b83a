import { describeOrFail, onConnection, schemaProperty, tableProperty, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { boolean, listOf, oneOf, orNull, record, text } from '../outputSchema.js';

export const describeTable = defineTool({
  name: 'describe_table',
  title: 'Describe a table',
  description:
    'Columns (name, type, nullability, default), primary key, indexes and foreign keys of a table or view. Call it before writing SQL against the table.',
  inputSchema: onConnection({ table: tableProperty, schema: schemaProperty }, ['table']),
  outputSchema: record({
    schema: text,
    name: text,
    type: oneOf(['table', 'view']),
    columns: listOf(
      record({ name: text, type: text, nullable: boolean, default: { ...orNull('string'), description: 'The default expression.' }, primary_key: boolean }),
    ),
    primary_key: listOf(text),
    indexes: listOf(record({ name: text, columns: listOf(text), unique: boolean })),
    foreign_keys: listOf(
      record({
        columns: listOf(text),
        references_schema: text,
        references_table: text,
        references_columns: listOf(text),
        on_update: text,
        on_delete: text,
      }),
    ),
  }),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return describeOrFail(db, args.schema, args.table, ctx.signal);
  },
});
