import type { EngineModule } from '../engineModule.js';
import { serverTarget } from '../../connections/serverTarget.js';
import { valuesOf } from '../../database.js';
import { SQL_DIALECTS } from '../../../sql/dialects.js';
import { tokenRowSelection } from '../../../sql/countQuery.js';
import { MysqlDatabase } from './mysqlDatabase.js';
import { mysqlHealth } from './mysqlHealth.js';
import { mysqlIndexAdvice, mysqlSlowQueries } from './mysqlQueryPerformance.js';
import { mysqlSchemaObjects } from './mysqlSchemaObjects.js';
import { mysqlDatabaseStatistics, mysqlTableStatistics } from './mysqlStatistics.js';
import { mysqlTableEscapes } from './mysqlTableEscapes.js';

/** MySQL and MariaDB, through `mysql2`. Index advice needs a query: the server keeps no scan counts per table. */
export const mysql: EngineModule = {
  engine: 'mysql',
  open(connection, { clock, ssh }) {
    const { address, tunnel } = serverTarget(connection, clock, ssh);
    return new MysqlDatabase(address, clock, tunnel);
  },
  probe: {
    versionSql: 'SELECT VERSION()',
    productVersion: (raw) => `${raw.includes('MariaDB') ? 'MariaDB' : 'MySQL'} ${/^[\d.]+/.exec(raw)?.[0] ?? raw}`,
    // SHOW … LIKE answers (Variable_name, Value).
    tls: { sql: "SHOW SESSION STATUS LIKE 'Ssl_version'", column: 'Value' },
  },
  dialect: SQL_DIALECTS.mysql,
  holdsReads: true,
  schemaObjects: mysqlSchemaObjects,
  statistics: { tables: mysqlTableStatistics, database: mysqlDatabaseStatistics },
  health: mysqlHealth,
  performance: { slowQueries: mysqlSlowQueries, queryIndexAdvice: mysqlIndexAdvice },
  effects: {
    tableEscapes: mysqlTableEscapes,
    rowSelection: async (sql, params) => tokenRowSelection(sql, 'mysql', params),
    async plannedRows(db, select, params, signal, timeoutMs) {
      const result = await db.read(`EXPLAIN ${select}`, { params, maxRows: 100, timeoutMs, signal });
      const column = result.columns.findIndex((c) => c.name.toLowerCase() === 'rows');
      const rows = valuesOf(result.rows)[0]?.[column];
      return column === -1 || rows === null || rows === undefined ? undefined : Number(rows);
    },
  },
};
