/** What a health check finds, and the bounds every engine's checks keep. */

/** Findings one check reports at most; more sets `is_truncated`. Engines ask for one more than this. */
export const FINDINGS_PER_CHECK = 50;
/** A session (PostgreSQL) or transaction (MySQL) open longer than this is reported. */
export const LONG_RUNNING_SECONDS = 300;

export type HealthFinding = { check: string; severity: 'info' | 'warning'; object?: string; detail: string };

/** One check as an engine ran it: its name and what it found (at most FINDINGS_PER_CHECK + 1). */
export type CheckResult = { check: string; findings: HealthFinding[] };
