import { basename } from 'node:path';
import type { EngineModule } from '../engineModule.js';
import { connectionFile } from '../fileTarget.js';
import { SQL_DIALECTS } from '../../../sql/dialects.js';
import { tokenRowSelection } from '../../../sql/countQuery.js';
import { SqliteDatabase } from './sqliteDatabase.js';
import { sqliteHealth } from './sqliteHealth.js';
import { sqliteIndexAdvice } from './sqliteQueryPerformance.js';
import { sqliteSchemaObjects } from './sqliteSchemaObjects.js';
import { sqliteDatabaseStatistics, sqliteTableStatistics } from './sqliteStatistics.js';
import { sqliteTableEscapes } from './sqliteTableEscapes.js';

/** SQLite files, on the application's shared query processes. No statement statistics, no row estimates. */
export const sqlite: EngineModule = {
  engine: 'sqlite',
  open(connection, { clock, sqlite: pool }) {
    return new SqliteDatabase(connectionFile(connection), pool ? { pool } : { clock });
  },
  probe: {
    // Also reads sqlite_master, which fails on a file that is not a database.
    versionSql: 'SELECT sqlite_version(), (SELECT count(*) FROM sqlite_master)',
    productVersion: (raw) => `SQLite ${/^[\d.]+/.exec(raw)?.[0] ?? raw}`,
    fileOf: (connection) => ('path' in connection ? connection.path : undefined),
    explainFailure: (reason, connection) =>
      /not a database/i.test(reason) && 'path' in connection ? `${connection.path} is not a SQLite database` : undefined,
  },
  dialect: SQL_DIALECTS.sqlite,
  holdsReads: true,
  schemaObjects: sqliteSchemaObjects,
  statistics: { tables: sqliteTableStatistics, database: sqliteDatabaseStatistics },
  health: sqliteHealth,
  performance: { queryIndexAdvice: sqliteIndexAdvice },
  effects: {
    tableEscapes: sqliteTableEscapes,
    rowSelection: async (sql, params) => tokenRowSelection(sql, 'sqlite', params),
    whyNoEstimate: 'SQLite keeps no row estimates',
  },
  fileDatabaseName: (connection) => basename('path' in connection ? connection.path : ''),
  sharedPool: true,
  bindsBooleansAsNumbers: true,
};
