import { onConnection, schemaProperty, useConnection } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { boolean, listOf, oneOf, record, text } from '../outputSchema.js';

type Match = {
  kind: 'table' | 'view' | 'column' | 'index';
  schema: string;
  table: string;
  name: string;
  detail?: string;
};

export const searchSchema = defineTool({
  name: 'search_schema',
  title: 'Search the schema',
  description:
    'Finds tables, views, columns and indexes whose name contains the query (case-insensitive). Use it to find where a concept lives before describing tables.',
  inputSchema: onConnection({
    query: {
      type: 'string',
      description: 'Part of a name, e.g. "cust" or "email".',
      minLength: 1,
      maxLength: 256,
    },
    schema: schemaProperty,
    max_results: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
  }, ['query']),
  outputSchema: record({
    matches: listOf(record({ kind: oneOf(['table', 'view', 'column', 'index']), schema: text, table: text, name: text, detail: text }, ['detail'])),
    is_truncated: boolean,
  }),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    const needle = args.query.toLowerCase();
    const limit = args.max_results ?? 100;
    const hits = (name: string) => name.toLowerCase().includes(needle);
    const matches: Match[] = [];
    for (const table of await db.listTables(args.schema, ctx.signal)) {
      // One match past the limit settles is_truncated: the remaining tables need not be described.
      if (matches.length > limit) break;
      if (hits(table.name))
        matches.push({ kind: table.type, schema: table.schema, table: table.name, name: table.name });
      const description = await db.describeTable(table.schema, table.name, ctx.signal);
      for (const column of description?.columns ?? []) {
        if (hits(column.name)) {
          matches.push({
            kind: 'column',
            schema: table.schema,
            table: table.name,
            name: column.name,
            detail: column.type,
          });
        }
      }
      for (const index of description?.indexes ?? []) {
        if (hits(index.name)) {
          matches.push({
            kind: 'index',
            schema: table.schema,
            table: table.name,
            name: index.name,
            detail: index.columns.join(', '),
          });
        }
      }
    }
    return { matches: matches.slice(0, limit), is_truncated: matches.length > limit };
  },
});
