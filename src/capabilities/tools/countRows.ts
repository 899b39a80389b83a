import { describeOrFail, onConnection, schemaProperty, tableProperty, useConnection } from '../connectionArgs.js';
import { fromDriverError } from '../dbErrors.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { defineTool } from '../types.js';
import { boolean, integer, record, text } from '../outputSchema.js';

export const countRows = defineTool({
  name: 'count_rows',
  title: 'Count rows',
  description: 'Counts a table’s or view’s rows; exact: false (the default) may use the engine’s fast estimate.',
  inputSchema: onConnection({
    table: tableProperty,
    schema: schemaProperty,
    exact: { type: 'boolean', default: false },
  }, ['table']),
  outputSchema: record({ schema: text, table: text, count: integer, exact: boolean }),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db } = useConnection(ctx, args.connection_id, args.database);
    const table = await describeOrFail(db, args.schema, args.table, ctx.signal);
    const count = await db
      .countRows(table.schema, table.name, args.exact ?? false, ctx.signal)
      .catch((error: unknown) => {
        throw fromDriverError(error);
      });
    return { schema: table.schema, table: table.name, ...count };
  },
});
