import { ENGINE_NAMES } from '../../db/database.js';
import { useConnection } from '../connectionArgs.js';
import type { Prompt } from '../types.js';
import { schemaText, userText } from './schemaText.js';

export const explainSchema: Prompt = {
  name: 'explain_schema',
  title: 'Explain a database schema',
  description:
    'Explains what a database models: its main entities, how they relate, and where to start querying.',
  arguments: [
    { name: 'connection_id', description: 'The connection to explain.', required: true },
    { name: 'schema', description: 'Limit to one schema.', required: false },
  ],
  async render(args, ctx) {
    const { connection, db } = useConnection(ctx, args.connection_id as string);
    const text = await schemaText(db, args.schema, ctx.signal);
    return {
      description: `The schema of ${connection.name}`,
      messages: [
        userText(
          `Explain the ${ENGINE_NAMES[db.engine]} database "${connection.name}" (connection_id ${connection.id}) in plain language: the entities it models, how the tables relate through their foreign keys, and which tables to start from for common questions. Its live schema:\n\n`,
          text,
        ),
      ],
    };
  },
};
