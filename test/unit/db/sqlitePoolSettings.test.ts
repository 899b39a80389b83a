import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { sqlitePoolSettings } from '../../../src/db/engines/sqlite/poolSettings.js';

/** The shared SQLite query pool's numbers (docs/limits.md, "The SQLite query pool"). */
describe('sqlitePoolSettings', () => {
  it('sizes the pool from the cores, 2 to 4, with 16 files per process and a 150 MB recycle threshold', () => {
    expect(sqlitePoolSettings({})).toEqual({
      processes: Math.max(2, Math.min(4, availableParallelism())),
      filesPerProcess: 16,
      recycleRssBytes: 150 * 1024 * 1024,
    });
    expect(sqlitePoolSettings({ SLUICE_SQLITE_PROCESSES: '' }).processes).toBe(sqlitePoolSettings({}).processes);
  });

  it('takes SLUICE_SQLITE_PROCESSES from 1 to 16', () => {
    expect(sqlitePoolSettings({ SLUICE_SQLITE_PROCESSES: '1' }).processes).toBe(1);
    expect(sqlitePoolSettings({ SLUICE_SQLITE_PROCESSES: '16' }).processes).toBe(16);
  });

  it.each(['0', '17', '2.5', '-1', 'four', ' 3'])('refuses SLUICE_SQLITE_PROCESSES=%j', (text) => {
    expect(() => sqlitePoolSettings({ SLUICE_SQLITE_PROCESSES: text })).toThrow(
      `SLUICE_SQLITE_PROCESSES must be a whole number from 1 to 16, not "${text}"`,
    );
  });
});
