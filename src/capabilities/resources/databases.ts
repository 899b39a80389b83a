import { listDatabases } from '../tools/listDatabases.js';
import type { ResourceFamily } from '../types.js';
import { RESOURCE_READ_TTL } from '../../core/contract.js';
import { matchConnectionUri } from '../../protocol/resourceUri.js';
import { JSON_MIME } from './jsonEntry.js';
import { perConnection } from './perConnection.js';

export const databasesResource: ResourceFamily = {
  uriTemplate: 'sluice://connections/{connection_id}/databases',
  name: 'connection-databases',
  title: 'Databases of a connection',
  description: 'The databases on the connection’s server, as list_databases (SQLite and DuckDB: the file).',
  mimeType: JSON_MIME,
  ttlMs: RESOURCE_READ_TTL['connection-databases'],
  match: (uri) => matchConnectionUri(uri, ['{connection_id}', 'databases']),
  list: async (ctx) => perConnection(ctx, 'databases', 'databases', (name) => `Databases on the server of ${name}.`),
  read: ({ connection_id }, ctx) => listDatabases.run({ connection_id: connection_id as string }, ctx),
};
