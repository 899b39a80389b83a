import { DriverFailure } from '../driverFailure.js';
import { type Database, ENGINE_NAMES } from '../database.js';
import { engineModule } from '../engines/registry.js';
import type { IndexAdvice, IndexAdviceOptions, SlowQueries, SlowQueriesOptions } from './performanceFindings.js';

export { PERFORMANCE } from './performanceFindings.js';

export function slowQueries(db: Database, options: SlowQueriesOptions): Promise<SlowQueries> {
  const slow = engineModule(db.engine).performance?.slowQueries;
  if (!slow) throw new DriverFailure('unsupported', `${ENGINE_NAMES[db.engine]} keeps no statement statistics`);
  return slow(db, options);
}

/** Advice for the given query's plan, or (without one) for the workload where the engine can read it. */
export function indexAdvice(db: Database, options: IndexAdviceOptions): Promise<IndexAdvice> {
  const { performance, unsupported } = engineModule(db.engine);
  if (options.sql !== undefined && performance?.queryIndexAdvice) return performance.queryIndexAdvice(db, { ...options, sql: options.sql });
  if (options.sql === undefined && performance?.workloadIndexAdvice) return performance.workloadIndexAdvice(db, options);
  throw new DriverFailure(
    'unsupported',
    unsupported?.indexAdvice ??
      `advice for the whole workload needs PostgreSQL's table statistics; give the sql of a query on ${ENGINE_NAMES[db.engine]}`,
  );
}
