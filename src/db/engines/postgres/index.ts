import type { EngineModule } from '../engineModule.js';
import { serverTarget } from '../../connections/serverTarget.js';
import { valuesOf } from '../../database.js';
import { SQL_DIALECTS } from '../../../sql/dialects.js';
import { postgresColumnReads } from './postgresColumnReads.js';
import { PostgresDatabase } from './postgresDatabase.js';
import { assertParses } from './postgresParser.js';
import { postgresHealth } from './postgresHealth.js';
import { postgresIndexAdvice, postgresSlowQueries } from './postgresQueryPerformance.js';
import { postgresRowSelection } from './postgresRowSelection.js';
import { postgresSchemaObjects } from './postgresSchemaObjects.js';
import { postgresDatabaseStatistics, postgresTableStatistics } from './postgresStatistics.js';
import { postgresTableEscapes } from './postgresTableEscapes.js';

/** PostgreSQL, through `pg`: every capability Sluice has. */
export const postgres: EngineModule = {
  engine: 'postgres',
  open(connection, { clock, ssh }) {
    const { address, tunnel } = serverTarget(connection, clock, ssh);
    return new PostgresDatabase(address, tunnel);
  },
  probe: {
    versionSql: "SELECT current_setting('server_version')",
    productVersion: (raw) => `PostgreSQL ${/^[\d.]+/.exec(raw)?.[0] ?? raw}`,
    tls: { sql: 'SELECT version FROM pg_stat_ssl WHERE pid = pg_backend_pid() AND ssl', column: 'version' },
  },
  dialect: SQL_DIALECTS.postgres,
  parse: assertParses,
  schemaObjects: postgresSchemaObjects,
  statistics: { tables: postgresTableStatistics, database: postgresDatabaseStatistics },
  health: postgresHealth,
  performance: { slowQueries: postgresSlowQueries, queryIndexAdvice: postgresIndexAdvice, workloadIndexAdvice: postgresIndexAdvice },
  columnReads: postgresColumnReads,
  holdsReads: true,
  effects: {
    tableEscapes: postgresTableEscapes,
    rowSelection: postgresRowSelection,
    async plannedRows(db, select, params, signal, timeoutMs) {
      const result = await db.read(`EXPLAIN (FORMAT JSON) ${select}`, { params, maxRows: 100, timeoutMs, signal });
      const cell = valuesOf(result.rows)[0]?.[0];
      const plan = (typeof cell === 'string' ? JSON.parse(cell) : cell) as [{ Plan?: { 'Plan Rows'?: unknown } }];
      const rows = plan[0]?.Plan?.['Plan Rows'];
      return typeof rows === 'number' ? rows : undefined;
    },
  },
};
