import { useConnection, visibleConnections } from '../connectionArgs.js';
import type { ResourceFamily } from '../types.js';
import { RESOURCE_READ_TTL } from '../../core/contract.js';
import { connectionUri, matchConnectionUri } from '../../protocol/resourceUri.js';
import { JSON_MIME, jsonEntry } from './jsonEntry.js';

export const tablesResource: ResourceFamily = {
  uriTemplate: 'sluice://connections/{connection_id}/tables{?schema}',
  name: 'connection-tables',
  title: 'Tables of a connection',
  description: 'The tables and views of a connection, optionally in one schema.',
  mimeType: JSON_MIME,
  ttlMs: RESOURCE_READ_TTL['connection-tables'],
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
