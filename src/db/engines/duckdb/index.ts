import { basename } from 'node:path';
import type { EngineModule } from '../engineModule.js';
import { connectionFile } from '../fileTarget.js';
import { SQL_DIALECTS } from '../../../sql/dialects.js';
import { tokenRowSelection } from '../../../sql/countQuery.js';
import { DuckdbDatabase } from './duckdbDatabase.js';
import { duckdbSchemaObjects } from './duckdbSchemaObjects.js';
import { duckdbTableEscapes } from './duckdbTableEscapes.js';

/**
 * DuckDB files (or `:memory:`), in the application's process. No statistics, health checks or query
 * performance: DuckDB keeps none of what those tools read.
 */
export const duckdb: EngineModule = {
  engine: 'duckdb',
  open(connection, { clock }) {
    const path = connectionFile(connection, true);
    return new DuckdbDatabase({ path, filesDir: 'filesDir' in connection ? connection.filesDir : undefined }, clock);
  },
  probe: {
    versionSql: 'SELECT version()',
    productVersion: (raw) => `DuckDB ${raw.replace(/^v/, '')}`,
    fileOf: (connection) => ('path' in connection && connection.path !== ':memory:' ? connection.path : undefined),
  },
  dialect: SQL_DIALECTS.duckdb,
  schemaObjects: duckdbSchemaObjects,
  holdsReads: true,
  effects: { rowSelection: async (sql, params) => tokenRowSelection(sql, 'duckdb', params), tableEscapes: duckdbTableEscapes },
  fileDatabaseName: (connection) =>
    !('path' in connection) || connection.path === ':memory:' ? 'memory' : basename(connection.path).replace(/\.[^.]*$/, ''),
  unsupported: { indexAdvice: 'DuckDB answers scans from its column statistics; index_advice does not advise it' },
};
