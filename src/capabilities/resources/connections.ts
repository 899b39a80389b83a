import { listConnections } from '../tools/listConnections.js';
import type { ResourceFamily } from '../types.js';
import { RESOURCE_READ_TTL } from '../../core/contract.js';
import { CONNECTIONS_URI } from '../../protocol/resourceUri.js';
import { JSON_MIME, jsonEntry } from './jsonEntry.js';

export const connectionsResource: ResourceFamily = {
  uriTemplate: CONNECTIONS_URI,
  name: 'connections',
  title: 'Saved connections',
  description: 'The database connections this client may use.',
  mimeType: JSON_MIME,
  ttlMs: RESOURCE_READ_TTL.connections,
  match: (uri) => (uri.href === CONNECTIONS_URI ? {} : undefined),
  async list() {
    return [
      jsonEntry(
        CONNECTIONS_URI,
        'connections',
        'Saved connections',
        'The database connections this client may use.',
      ),
    ];
  },
  read: (_variables, ctx) => listConnections.run({}, ctx),
};
