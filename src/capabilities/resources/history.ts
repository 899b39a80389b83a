import { invalidParams } from '../../core/errors.js';
import { useConnection, visibleConnections } from '../connectionArgs.js';
import type { ResourceFamily } from '../types.js';
import { RESOURCE_READ_TTL } from '../../core/contract.js';
import { connectionUri, matchConnectionUri } from '../../protocol/resourceUri.js';
import { JSON_MIME, jsonEntry } from './jsonEntry.js';

export const historyResource: ResourceFamily = {
  uriTemplate: 'sluice://connections/{connection_id}/history{?limit,search}',
  name: 'query-history',
  title: 'Query history',
  description: 'Statements recently run through Sluice on a connection, newest first (kept in memory only).',
  mimeType: JSON_MIME,
  ttlMs: RESOURCE_READ_TTL['query-history'],
  match: (uri) => matchConnectionUri(uri, ['{connection_id}', 'history'], ['limit', 'search']),
  async list(ctx) {
    return visibleConnections(ctx).map((c) =>
      jsonEntry(
        connectionUri(c.id, 'history'),
        `${c.id}-history`,
        `${c.name}: history`,
        `Recent statements on ${c.name}.`,
      ),
    );
  },
  async read({ connection_id, limit = '50', search }, ctx) {
    const { connection } = useConnection(ctx, connection_id as string);
    const count = Number(limit);
    if (!Number.isInteger(count) || count < 1 || count > 200)
      throw invalidParams('limit must be an integer from 1 to 200');
    return { entries: ctx.history.recent(connection.id, count, search) };
  },
};
