import { describe, expect, it } from 'vitest';
import { currentUser } from '../../../src/platform/currentUser.js';

const home = () => '/home/zoe';
const uid = () => 1000;

describe('currentUser', () => {
  it('on Linux and macOS: the home, the uid and XDG_CONFIG_HOME; never APPDATA or a Windows account', () => {
    const env = { XDG_CONFIG_HOME: '/home/zoe/.cfg', APPDATA: 'C:\\x', USERNAME: 'zoe', USERDOMAIN: 'D' };
    for (const platform of ['linux', 'darwin'] as const) {
      expect(currentUser({ platform, env, home, uid })).toEqual({ home: '/home/zoe', uid: 1000, xdgConfigHome: '/home/zoe/.cfg' });
    }
    expect(currentUser({ platform: 'linux', env: {}, home, uid })).toEqual({ home: '/home/zoe', uid: 1000 });
  });

  it('on Windows: APPDATA and DOMAIN\\user, no uid', () => {
    const env = { APPDATA: 'C:\\Users\\Zoë\\AppData\\Roaming', USERNAME: 'Zoë', USERDOMAIN: 'DESKTOP-1' };
    expect(currentUser({ platform: 'win32', env, home: () => 'C:\\Users\\Zoë', uid })).toEqual({
      home: 'C:\\Users\\Zoë',
      appData: 'C:\\Users\\Zoë\\AppData\\Roaming',
      windowsUser: 'DESKTOP-1\\Zoë',
    });
    expect(currentUser({ platform: 'win32', env: { USERNAME: 'zoe' }, home, uid }).windowsUser).toBe('zoe');
  });
});
