import { ENGINE_NAMES } from '../../db/database.js';
import { useConnection } from '../connectionArgs.js';
import type { Prompt } from '../types.js';
import { schemaText, userText } from './schemaText.js';

export const reviewQuery: Prompt = {
  name: 'review_query',
  title: 'Review a SQL query',
  description: 'Reviews a statement for correctness, performance and safety against the live schema.',
  arguments: [
    { name: 'connection_id', description: 'The connection the statement runs on.', required: true },
    { name: 'sql', description: 'The statement to review.', required: true },
  ],
  async render(args, ctx) {
    const { connection, db } = useConnection(ctx, args.connection_id as string);
    const text = await schemaText(db, undefined, ctx.signal);
    return {
      description: `Review of a statement for ${connection.name}`,
      messages: [
        userText(
          `Review this ${ENGINE_NAMES[db.engine]} statement for "${connection.name}" (connection_id ${connection.id}). Check that it is correct against the schema, point out performance problems (use explain_query to see the plan), and flag anything that writes or could lose data.\n\n\`\`\`sql\n${args.sql}\n\`\`\`\n\nSchema:\n\n`,
          text,
        ),
      ],
    };
  },
};
