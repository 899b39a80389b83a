import { getTableDdl } from '../tools/getTableDdl.js';
import type { ResourceFamily } from '../types.js';
import { RESOURCE_READ_TTL } from '../../core/contract.js';
import { perTable } from './table.js';
import { connectionUri, matchConnectionUri } from '../../protocol/resourceUri.js';
import { JSON_MIME, jsonEntry } from './jsonEntry.js';

export const tableDdlResource: ResourceFamily = {
  uriTemplate: 'sluice://connections/{connection_id}/tables/{table}/ddl{?schema}',
  name: 'table-ddl',
  title: 'Table DDL',
  description: 'The CREATE statements of one table or view, with its indexes and triggers.',
  mimeType: JSON_MIME,
  ttlMs: RESOURCE_READ_TTL['table-ddl'],
  match: (uri) => matchConnectionUri(uri, ['{connection_id}', 'tables', '{table}', 'ddl'], ['schema']),
  list: (ctx) =>
    perTable(ctx, (id, name, table) =>
      jsonEntry(
        connectionUri(id, 'tables', table, 'ddl'),
        `${id}-${table}-ddl`,
        `${name}: ${table} DDL`,
        `CREATE statements of ${table}.`,
      ),
    ),
  read: ({ connection_id, table, schema }, ctx) =>
    getTableDdl.run(
      { connection_id: connection_id as string, table: table as string, ...(schema ? { schema } : {}) },
      ctx,
    ),
};
