import { type Database, ENGINE_NAMES } from '../database.js';
import { engineModule } from '../engines/registry.js';
import { DriverFailure } from '../driverFailure.js';
import { FINDINGS_PER_CHECK, type HealthFinding } from './healthFindings.js';

export type HealthReport = { checks: string[]; findings: HealthFinding[]; is_truncated: boolean };

/** The engine's checks, each bounded to FINDINGS_PER_CHECK findings. */
export async function databaseHealth(db: Database, signal: AbortSignal): Promise<HealthReport> {
  const { health } = engineModule(db.engine);
  if (!health) throw new DriverFailure('unsupported', `health checks are not available for ${ENGINE_NAMES[db.engine]} connections`);
  const results = await health(db, signal);
  return {
    checks: results.map((r) => r.check),
    findings: results.flatMap((r) => r.findings.slice(0, FINDINGS_PER_CHECK)),
    is_truncated: results.some((r) => r.findings.length > FINDINGS_PER_CHECK),
  };
}
