import { onConnection, schemaProperty, tableProperty, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { listForeignKeys as foreignKeysOf } from '../../db/catalog/schemaObjects.js';
import { boolean, listOf, orNull, record, text } from '../outputSchema.js';

/** One foreign key, of this table or pointing at it. */
const foreignKey = record({
  name: { ...orNull('string'), description: 'Null on SQLite, which keeps no name.' },
  schema: text,
  table: text,
  columns: listOf(text),
  referenced_schema: text,
  referenced_table: text,
  referenced_columns: listOf(text),
  on_update: text,
  on_delete: text,
});

export const listForeignKeys = defineTool({
  name: 'list_foreign_keys',
  title: 'List foreign keys',
  description: 'Foreign keys of a table in both directions: outgoing (it references others) and incoming (others reference it).',
  inputSchema: onConnection({ schema: schemaProperty, table: tableProperty }, ['table']),
  outputSchema: record({ schema: text, table: text, outgoing: listOf(foreignKey), incoming: listOf(foreignKey), is_truncated: boolean }),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return foreignKeysOf(db, args.schema, args.table, ctx.signal);
  },
});
