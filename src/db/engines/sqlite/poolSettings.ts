import { availableParallelism } from 'node:os';
import { DATABASES } from '../../../core/contract.js';

/** The shared pool of SQLite query processes: how many, how many files each keeps open, when one is replaced. */
export type SqlitePoolSettings = {
  processes: number;
  filesPerProcess: number;
  /** An idle process holding more memory (RSS) than this is replaced. */
  recycleRssBytes: number;
};

/** The variable that overrides the pool's size (`sluice serve`, docs/limits.md). */
const POOL_SIZE_VARIABLE = 'SLUICE_SQLITE_PROCESSES';

/**
 * The pool's settings: one process per core, within `sqliteProcessesMin`..`sqliteProcessesMax`, unless
 * `SLUICE_SQLITE_PROCESSES` in `env` names a size (1 to `sqliteProcessesLimit`).
 */
export function sqlitePoolSettings(env: NodeJS.ProcessEnv = {}): SqlitePoolSettings {
  return {
    processes: poolSize(env[POOL_SIZE_VARIABLE]),
    filesPerProcess: DATABASES.sqliteFilesPerProcess,
    recycleRssBytes: DATABASES.sqliteRecycleRssMb * 1024 * 1024,
  };
}

function poolSize(text: string | undefined): number {
  if (text === undefined || text === '') {
    return Math.max(DATABASES.sqliteProcessesMin, Math.min(DATABASES.sqliteProcessesMax, availableParallelism()));
  }
  const size = Number(text);
  if (!/^\d+$/.test(text) || size < 1 || size > DATABASES.sqliteProcessesLimit) {
    throw new Error(`${POOL_SIZE_VARIABLE} must be a whole number from 1 to ${DATABASES.sqliteProcessesLimit}, not "${text}"`);
  }
  return size;
}
