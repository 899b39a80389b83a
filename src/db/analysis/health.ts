import type { Database } from '../database.js';
import { DriverFailure } from '../driverFailure.js';
import { mysqlHealth } from '../engines/mysql/mysqlHealth.js';
import { postgresHealth } from '../engines/postgres/postgresHealth.js';
import { sqliteHealth } from '../engines/sqlite/sqliteHealth.js';
import { type CheckResult, FINDINGS_PER_CHECK, type HealthFinding } from './healthFindings.js';

export type HealthReport = { checks: string[]; findings: HealthFinding[]; is_truncated: boolean };

type EngineHealth = (db: Database, signal: AbortSignal) => Promise<CheckResult[]>;

const HEALTH: Record<Exclude<Database['engine'], 'duckdb'>, EngineHealth> = {
  sqlite: sqliteHealth,
  postgres: postgresHealth,
  mysql: mysqlHealth,
};

/** The engine's checks, each bounded to FINDINGS_PER_CHECK findings. */
export async function databaseHealth(db: Database, signal: AbortSignal): Promise<HealthReport> {
  if (db.engine === 'duckdb') throw new DriverFailure('unsupported', 'health checks are not available for DuckDB connections');
  const results = await HEALTH[db.engine](db, signal);
  return {
    checks: results.map((r) => r.check),
    findings: results.flatMap((r) => r.findings.slice(0, FINDINGS_PER_CHECK)),
    is_truncated: results.some((r) => r.findings.length > FINDINGS_PER_CHECK),
  };
}
