import { describeOrFail, useConnection, visibleConnections } from '../connectionArgs.js';
import type { CallContext, ResourceEntry, ResourceFamily } from '../types.js';
import { RESOURCE_READ_TTL } from '../../core/contract.js';
import { connectionUri, matchConnectionUri } from '../../protocol/resourceUri.js';
import { JSON_MIME, jsonEntry } from './jsonEntry.js';

/** One entry per table of every visible connection, made by `entry`. */
export async function perTable(
  ctx: CallContext,
  entry: (connectionId: string, connectionName: string, table: string) => ResourceEntry,
): Promise<ResourceEntry[]> {
  const entries: ResourceEntry[] = [];
  for (const connection of visibleConnections(ctx)) {
    const { db } = useConnection(ctx, connection.id);
    const tables = await db.listTables(db.defaultSchema(), ctx.signal).catch(() => []);
    for (const table of tables) entries.push(entry(connection.id, connection.name, table.name));
  }
  return entries;
}

export const tableResource: ResourceFamily = {
  uriTemplate: 'sluice://connections/{connection_id}/tables/{table}{?schema}',
  name: 'table',
  title: 'Table description',
  description: 'Columns, keys, indexes and foreign keys of one table or view.',
  mimeType: JSON_MIME,
  ttlMs: RESOURCE_READ_TTL.table,
  match: (uri) => matchConnectionUri(uri, ['{connection_id}', 'tables', '{table}'], ['schema']),
  list: (ctx) =>
    perTable(ctx, (id, name, table) =>
      jsonEntry(
        connectionUri(id, 'tables', table),
        `${id}-${table}`,
        `${name}: ${table}`,
        `Structure of ${table}.`,
      ),
    ),
  async read({ connection_id, table, schema }, ctx) {
    const { db } = useConnection(ctx, connection_id as string);
    return describeOrFail(db, schema, table as string, ctx.signal);
  },
};
