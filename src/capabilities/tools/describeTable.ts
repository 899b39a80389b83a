import { describeOrFail, onConnection, schemaProperty, tableProperty, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';

export const describeTable = defineTool({
  name: 'describe_table',
  title: 'Describe a table',
  description:
    'Columns (name, type, nullability, default), primary key, indexes and foreign keys of a table or view. Call it before writing SQL against the table.',
  inputSchema: onConnection({ table: tableProperty, schema: schemaProperty }, ['table']),
  outputSchema: {
    type: 'object',
    properties: {
      schema: { type: 'string' },
      name: { type: 'string' },
      type: { type: 'string', enum: ['table', 'view'] },
      columns: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            type: { type: 'string' },
            nullable: { type: 'boolean' },
            default: { description: 'Default expression, or null.' },
            primary_key: { type: 'boolean' },
          },
        },
      },
      primary_key: { type: 'array', items: { type: 'string' } },
      indexes: { type: 'array', items: { type: 'object', properties: {} } },
      foreign_keys: { type: 'array', items: { type: 'object', properties: {} } },
    },
    required: ['schema', 'name', 'type', 'columns', 'primary_key', 'indexes', 'foreign_keys'],
  },
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    return describeOrFail(db, args.schema, args.table, ctx.signal);
  },
});
