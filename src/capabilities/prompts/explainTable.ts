import { ENGINE_NAMES } from '../../db/database.js';
import { describeOrFail, useConnection } from '../connectionArgs.js';
import type { Prompt } from '../types.js';
import { tableText, userText } from './schemaText.js';

export const explainTable: Prompt = {
  name: 'explain_table',
  title: 'Explain a table',
  description: 'Explains one table: what a row means, its columns, keys and relationships.',
  arguments: [
    { name: 'connection_id', description: 'The connection of the table.', required: true },
    { name: 'table', description: 'The table or view to explain.', required: true },
    { name: 'schema', description: 'Its schema, when not the default.', required: false },
  ],
  async render(args, ctx) {
    const { connection, db } = useConnection(ctx, args.connection_id as string);
    const table = await describeOrFail(db, args.schema, args.table as string, ctx.signal);
    return {
      description: `The table ${table.name} of ${connection.name}`,
      messages: [
        userText(
          `Explain the ${table.type} "${table.name}" of the ${ENGINE_NAMES[db.engine]} database "${connection.name}" (connection_id ${connection.id}): what one row represents, what each column holds, and how it relates to other tables. Its definition:\n\n`,
          tableText(table),
          '\n\nUse browse_table or execute_query for a few sample rows if that helps.',
        ),
      ],
    };
  },
};
