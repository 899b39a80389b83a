import { useConnection, visibleConnections } from '../connectionArgs.js';
import type { ResourceFamily } from '../types.js';
import { connectionUri, JSON_MIME, jsonEntry, matchConnectionUri } from './uri.js';

export const tablesResource: ResourceFamily = {
  uriTemplate: 'sluice://connections/{connection_id}/tables{?schema}',
  name: 'connection-tables',
  title: 'Tables of a connection',
  description: 'The tables and views of a connection, optionally in one schema.',
  mimeType: JSON_MIME,
  ttlMs: 30_000,
  match: (uri) => matchConnectionUri(uri, ['{connection_id}', 'tables'], ['schema']),
  async list(ctx) {
    return visibleConnections(ctx).map((c) =>
      jsonEntry(
        connectionUri(c.id, 'tables'),
        `${c.id}-tables`,
        `${c.name}: tables`,
        `Tables and views of ${c.name}.`,
      ),
    );
  },
  async read({ connection_id, schema }, ctx) {
    const { db } = useConnection(ctx, connection_id as string);
    return { tables: await db.listTables(schema, ctx.signal) };
  },
};
