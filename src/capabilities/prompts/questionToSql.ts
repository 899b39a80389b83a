import { ENGINE_NAMES } from '../../db/database.js';
import { useConnection } from '../connectionArgs.js';
import type { Prompt } from '../types.js';
import { schemaText, userText } from './schemaText.js';

export const questionToSql: Prompt = {
  name: 'question_to_sql',
  title: 'Turn a question into SQL',
  description: 'Writes one read-only SQL query that answers a question, from the live schema.',
  arguments: [
    { name: 'connection_id', description: 'The connection to query.', required: true },
    { name: 'question', description: 'The question, in plain language.', required: true },
  ],
  async render(args, ctx) {
    const { connection, db } = useConnection(ctx, args.connection_id as string);
    const text = await schemaText(db, undefined, ctx.signal);
    return {
      description: `SQL for a question about ${connection.name}`,
      messages: [
        userText(
          `Write one read-only ${ENGINE_NAMES[db.engine]} SQL query against "${connection.name}" (connection_id ${connection.id}) that answers:\n\n${args.question}\n\nUse only the tables and columns below, qualify ambiguous columns, and explain the query briefly. Run it with execute_query if asked. Schema:\n\n`,
          text,
        ),
      ],
    };
  },
};
