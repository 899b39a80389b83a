import { useConnection, visibleConnections } from '../connectionArgs.js';
import type { ResourceFamily } from '../types.js';
import { RESOURCE_READ_TTL } from '../../core/contract.js';
import { connectionUri, matchConnectionUri } from '../../protocol/resourceUri.js';
import { JSON_MIME, jsonEntry } from './jsonEntry.js';

export const schemaResource: ResourceFamily = {
  uriTemplate: 'sluice://connections/{connection_id}/schema',
  name: 'connection-schema',
  title: 'Connection schema',
  description: 'Every schema, table, view and column of a connection. Subscribe to hear when it changes.',
  mimeType: JSON_MIME,
  ttlMs: RESOURCE_READ_TTL['connection-schema'],
  match: (uri) => matchConnectionUri(uri, ['{connection_id}', 'schema']),
  async list(ctx) {
    return visibleConnections(ctx).map((c) =>
      jsonEntry(
        connectionUri(c.id, 'schema'),
        `${c.id}-schema`,
        `${c.name}: schema`,
        `Tables and columns of ${c.name}.`,
      ),
    );
  },
  async read({ connection_id }, ctx) {
    const { db } = useConnection(ctx, connection_id as string);
    const tables = [];
    for (const table of await db.listTables(undefined, ctx.signal)) {
      const description = await db.describeTable(table.schema, table.name, ctx.signal);
      tables.push({
        ...table,
        columns: (description?.columns ?? []).map((c) => ({ name: c.name, type: c.type })),
      });
    }
    return { connection_id, engine: db.engine, tables };
  },
};
