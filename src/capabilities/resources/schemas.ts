import { listSchemas } from '../tools/listSchemas.js';
import type { ResourceFamily } from '../types.js';
import { RESOURCE_READ_TTL } from '../../core/contract.js';
import { matchConnectionUri } from '../../protocol/resourceUri.js';
import { JSON_MIME } from './jsonEntry.js';
import { perConnection } from './perConnection.js';

export const schemasResource: ResourceFamily = {
  uriTemplate: 'sluice://connections/{connection_id}/schemas{?database}',
  name: 'connection-schemas',
  title: 'Schemas of a connection',
  description: 'The schemas of a connection, or of another database on its server, with the default one, as list_schemas.',
  mimeType: JSON_MIME,
  ttlMs: RESOURCE_READ_TTL['connection-schemas'],
  match: (uri) => matchConnectionUri(uri, ['{connection_id}', 'schemas'], ['database']),
  list: async (ctx) => perConnection(ctx, 'schemas', 'schemas', (name) => `Schemas of ${name} and its default one.`),
  read: ({ connection_id, database }, ctx) =>
    listSchemas.run({ connection_id: connection_id as string, ...(database ? { database } : {}) }, ctx),
};
