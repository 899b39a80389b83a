import { ToolError } from '../../core/errors.js';
import { ENGINE_NAMES } from '../../db/database.js';
import { describeOrFail, useConnection } from '../connectionArgs.js';
import type { Prompt } from '../types.js';
import { tableText, userText } from './schemaText.js';

export const dataQualityAudit: Prompt = {
  name: 'data_quality_audit',
  title: 'Audit a table’s data quality',
  description: 'Checks one table for nulls, duplicate keys, orphaned foreign keys and out-of-range values with read-only SQL.',
  arguments: [
    { name: 'connection_id', description: 'The connection of the table.', required: true },
    { name: 'table', description: 'The table to audit.', required: true },
    { name: 'schema', description: 'Its schema, when not the default.', required: false },
    { name: 'column', description: 'One column to focus on.', required: false },
  ],
  async render(args, ctx) {
    const { connection, db } = useConnection(ctx, args.connection_id as string);
    const table = await describeOrFail(db, args.schema, args.table as string, ctx.signal);
    const column =
      args.column === undefined
        ? undefined
        : (table.columns.find((c) => c.name === args.column) ??
          table.columns.find((c) => c.name.toLowerCase() === args.column?.toLowerCase()));
    if (args.column !== undefined && !column)
      throw new ToolError('not_found', `${table.name} has no column named "${args.column}"; call describe_table`);
    const focus = column ? `, focusing on the column ${column.name}` : '';
    return {
      description: `A data quality audit of ${table.name} in ${connection.name}`,
      messages: [
        userText(
          `Audit the data quality of the ${table.type} "${table.name}" in the ${ENGINE_NAMES[db.engine]} database "${connection.name}" (connection_id ${connection.id})${focus}. Check:\n` +
            '1. nulls: how many rows leave each column empty, and whether that looks intended;\n' +
            '2. duplicates on candidate keys: the primary key, unique indexes, and columns that look like natural keys;\n' +
            '3. orphaned foreign keys: values with no matching row in the referenced table;\n' +
            '4. out-of-range values: negative amounts, implausible dates, values outside a column’s evident domain.\n' +
            'Use read-only SQL only (execute_query, count_rows, browse_table), with aggregates (COUNT, GROUP BY … HAVING) rather than reading every row. Report each finding with the query that found it and how many rows it affects. Its definition:\n\n',
          tableText(table),
        ),
      ],
    };
  },
};
