import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

/** In the support directory: the log of a Sluice started in the background (by the login service on macOS and Windows, or by `open-url`). */
export const SERVE_LOG = 'sluice.log';

/**
 * `--data-dir`, else `SLUICE_HOME`, else the platform's application-support folder, spelled with that
 * platform's separators (so the Windows and macOS answers can be checked on any system).
 */
export function resolveSupportDir(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (flag) return flag;
  if (env.SLUICE_HOME) return env.SLUICE_HOME;
  if (platform === 'win32') return win32.join(env.APPDATA || win32.join(home, 'AppData', 'Roaming'), 'Sluice');
  if (platform === 'darwin') return posix.join(home, 'Library', 'Application Support', 'Sluice');
  return posix.join(env.XDG_CONFIG_HOME || posix.join(home, '.config'), 'sluice');
}
