import { ENGINE_NAMES } from '../../db/database.js';
import { useConnection } from '../connectionArgs.js';
import type { Prompt } from '../types.js';
import { schemaText, userText } from './schemaText.js';

export const writeMigration: Prompt = {
  name: 'write_migration',
  title: 'Write a schema migration',
  description: 'Drafts a migration (up and down) for a schema change, from the live schema.',
  arguments: [
    { name: 'connection_id', description: 'The connection to migrate.', required: true },
    { name: 'change', description: 'The change wanted, in plain language.', required: true },
  ],
  async render(args, ctx) {
    const { connection, db } = useConnection(ctx, args.connection_id as string);
    const text = await schemaText(db, undefined, ctx.signal);
    return {
      description: `A migration for ${connection.name}`,
      messages: [
        userText(
          `Draft a ${ENGINE_NAMES[db.engine]} migration for "${connection.name}" (connection_id ${connection.id}) that makes this change:\n\n${args.change}\n\nGive the up and the down statements, keep existing data, respect the foreign keys, and do not run anything: the user reviews it first. Current schema:\n\n`,
          text,
        ),
      ],
    };
  },
};
