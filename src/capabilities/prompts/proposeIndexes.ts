import { ENGINE_NAMES } from '../../db/database.js';
import { describeOrFail, useConnection } from '../connectionArgs.js';
import { checkSqlSize } from '../statementArgs.js';
import type { Prompt } from '../types.js';
import { schemaText, tableText, userText } from './schemaText.js';

export const proposeIndexes: Prompt = {
  name: 'propose_indexes',
  title: 'Propose indexes',
  description: 'Proposes indexes for a table, a schema or one statement, from the existing indexes, foreign keys and plans.',
  arguments: [
    { name: 'connection_id', description: 'The connection to index.', required: true },
    { name: 'table', description: 'Limit to one table.', required: false },
    { name: 'schema', description: 'Its schema, when not the default.', required: false },
    { name: 'sql', description: 'A slow statement the indexes should serve.', required: false },
  ],
  async render(args, ctx) {
    const { connection, db } = useConnection(ctx, args.connection_id as string);
    if (args.sql !== undefined) checkSqlSize(args.sql);
    const text = args.table
      ? tableText(await describeOrFail(db, args.schema, args.table, ctx.signal))
      : await schemaText(db, args.schema, ctx.signal);
    const scope = args.table ? `the table "${args.table}"` : 'its tables';
    const statement = args.sql
      ? `The indexes should serve this statement; run explain_query on it first and read the plan:\n\n\`\`\`sql\n${args.sql}\n\`\`\`\n\n`
      : '';
    return {
      description: `Index proposals for ${connection.name}`,
      messages: [
        userText(
          `Propose indexes for ${scope} in the ${ENGINE_NAMES[db.engine]} database "${connection.name}" (connection_id ${connection.id}). ${statement}Look for foreign keys and frequent filters or sorts without an index, and for indexes that duplicate another. The index_advice tool suggests indexes for a statement and list_indexes shows the existing ones in full. Give each proposal as a CREATE INDEX statement with its reason and its cost on writes; do not run them: the user reviews them first. Existing tables, foreign keys and indexes:\n\n`,
          text,
        ),
      ],
    };
  },
};
