import { DriverFailure } from '../driverFailure.js';
import { type Database, ENGINE_NAMES } from '../database.js';
import { mysqlIndexAdvice, mysqlSlowQueries } from '../engines/mysql/mysqlQueryPerformance.js';
import { postgresIndexAdvice, postgresSlowQueries } from '../engines/postgres/postgresQueryPerformance.js';
import { sqliteIndexAdvice } from '../engines/sqlite/sqliteQueryPerformance.js';
import type { IndexAdvice, IndexAdviceOptions, SlowQueries, SlowQueriesOptions } from './performanceFindings.js';

export { PERFORMANCE } from './performanceFindings.js';

export function slowQueries(db: Database, options: SlowQueriesOptions): Promise<SlowQueries> {
  if (db.engine === 'postgres') return postgresSlowQueries(db, options);
  if (db.engine === 'mysql') return mysqlSlowQueries(db, options);
  throw new DriverFailure('unsupported', `${ENGINE_NAMES[db.engine]} keeps no statement statistics`);
}

export function indexAdvice(db: Database, options: IndexAdviceOptions): Promise<IndexAdvice> {
  if (db.engine === 'postgres') return postgresIndexAdvice(db, options);
  if (db.engine === 'sqlite' && options.sql !== undefined) return sqliteIndexAdvice(db, { ...options, sql: options.sql });
  if (db.engine === 'mysql' && options.sql !== undefined) return mysqlIndexAdvice(db, { ...options, sql: options.sql });
  throw new DriverFailure(
    'unsupported',
    db.engine === 'duckdb'
      ? 'DuckDB answers scans from its column statistics; index_advice does not advise it'
      : `advice for the whole workload needs PostgreSQL's table statistics; give the sql of a query on ${ENGINE_NAMES[db.engine]}`,
  );
}
