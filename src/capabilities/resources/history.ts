import { useConnection } from '../connectionArgs.js';
import { historyFilter } from '../historyFilter.js';
import type { ResourceFamily } from '../types.js';
import { RESOURCE_READ_TTL } from '../../core/contract.js';
import { matchConnectionUri } from '../../protocol/resourceUri.js';
import { JSON_MIME } from './jsonEntry.js';
import { perConnection } from './perConnection.js';

export const historyResource: ResourceFamily = {
  uriTemplate: 'sluice://connections/{connection_id}/history{?limit,search,kind,outcome}',
  name: 'query-history',
  title: 'Query history',
  description:
    'Statements recently run through Sluice on a connection, newest first (kept in memory only); search their text, filter by kind and outcome.',
  mimeType: JSON_MIME,
  ttlMs: RESOURCE_READ_TTL['query-history'],
  match: (uri) => matchConnectionUri(uri, ['{connection_id}', 'history'], ['limit', 'search', 'kind', 'outcome']),
  list: async (ctx) => perConnection(ctx, 'history', 'history', (name) => `Recent statements on ${name}.`),
  async read({ connection_id, ...filter }, ctx) {
    const { connection, privacy } = useConnection(ctx, connection_id as string);
    return { entries: ctx.history.recent(connection.id, historyFilter(filter), privacy.statementText) };
  },
};
