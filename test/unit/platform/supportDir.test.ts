import { describe, expect, it } from 'vitest';
import { resolveSupportDir } from '../../../src/platform/supportDir.js';

describe('resolveSupportDir', () => {
  it('prefers --data-dir, then SLUICE_HOME, on every platform', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(resolveSupportDir('/flag', { SLUICE_HOME: '/env' }, platform, '/home/u')).toBe('/flag');
      expect(resolveSupportDir(undefined, { SLUICE_HOME: '/env' }, platform, '/home/u')).toBe('/env');
    }
  });

  it('linux: $XDG_CONFIG_HOME/sluice, else ~/.config/sluice', () => {
    expect(resolveSupportDir(undefined, { XDG_CONFIG_HOME: '/xdg' }, 'linux', '/home/u')).toBe('/xdg/sluice');
    expect(resolveSupportDir(undefined, { XDG_CONFIG_HOME: '' }, 'linux', '/home/u')).toBe('/home/u/.config/sluice');
  });

  it('darwin: ~/Library/Application Support/Sluice, whatever XDG says', () => {
    expect(resolveSupportDir(undefined, { XDG_CONFIG_HOME: '/xdg' }, 'darwin', '/Users/u')).toBe(
      '/Users/u/Library/Application Support/Sluice',
    );
  });

  it('win32: %APPDATA%\\Sluice, else the roaming folder under the profile, with backslashes', () => {
    expect(resolveSupportDir(undefined, { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32', 'C:\\Users\\u')).toBe(
      'C:\\Users\\u\\AppData\\Roaming\\Sluice',
    );
    expect(resolveSupportDir(undefined, {}, 'win32', 'C:\\Users\\u')).toBe('C:\\Users\\u\\AppData\\Roaming\\Sluice');
  });
});
