import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSupportDir } from '../../../src/core/supportDir.js';

describe('resolveSupportDir', () => {
  it('prefers --data-dir, then SLUICE_HOME', () => {
    expect(resolveSupportDir('/flag', { SLUICE_HOME: '/env' }, 'linux')).toBe('/flag');
    expect(resolveSupportDir(undefined, { SLUICE_HOME: '/env' }, 'linux')).toBe('/env');
  });

  it('falls back to the platform’s application-support folder', () => {
    expect(resolveSupportDir(undefined, {}, 'darwin')).toBe(
      join(homedir(), 'Library', 'Application Support', 'Sluice'),
    );
    expect(resolveSupportDir(undefined, { XDG_CONFIG_HOME: '/xdg' }, 'linux')).toBe('/xdg/sluice');
    expect(resolveSupportDir(undefined, {}, 'linux')).toBe(join(homedir(), '.config', 'sluice'));
    expect(resolveSupportDir(undefined, { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32')).toBe(
      join('C:\\Users\\u\\AppData\\Roaming', 'Sluice'),
    );
  });
});
