import type { Database, TableDescription } from '../../db/database.js';
import { describeOrFail } from '../connectionArgs.js';
import type { PromptDataMessage } from '../types.js';

export function tableText(t: TableDescription): string {
  const columns = t.columns.map((c) => {
    const flags = [
      c.primary_key ? 'PK' : '',
      c.nullable ? '' : 'NOT NULL',
      c.default !== null ? `DEFAULT ${c.default}` : '',
    ]
      .filter(Boolean)
      .join(' ');
    return `  - ${c.name} ${c.type}${flags ? ` ${flags}` : ''}`;
  });
  const keys = t.foreign_keys.map(
    (fk) => `  - (${fk.columns.join(', ')}) → ${fk.references_table}(${fk.references_columns.join(', ')})`,
  );
  const indexes = t.indexes.map((i) => `  - ${i.name}${i.unique ? ' UNIQUE' : ''} (${i.columns.join(', ')})`);
  return [
    `${t.type === 'view' ? 'View' : 'Table'} ${t.schema}.${t.name}`,
    ...columns,
    ...(keys.length ? ['  foreign keys:', ...keys] : []),
    ...(indexes.length ? ['  indexes:', ...indexes] : []),
  ].join('\n');
}

/** The live schema of a connection (or of one schema) as compact text for a prompt. */
export async function schemaText(
  db: Database,
  schema: string | undefined,
  signal: AbortSignal,
): Promise<string> {
  const parts: string[] = [];
  for (const table of await db.listTables(schema, signal)) {
    parts.push(tableText(await describeOrFail(db, table.schema, table.name, signal)));
  }
  return parts.length ? parts.join('\n\n') : '(no tables)';
}

/** A user message of `lead`, the database text `data` (fenced and cut by prompts/get), and `after`. */
export const userText = (lead: string, data: string, after?: string): PromptDataMessage => ({
  role: 'user',
  lead,
  data,
  ...(after === undefined ? {} : { after }),
});
