import { homedir } from 'node:os';
import { join } from 'node:path';

/** `--data-dir`, else `SLUICE_HOME`, else the platform's application-support folder. */
export function resolveSupportDir(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (flag) return flag;
  if (env.SLUICE_HOME) return env.SLUICE_HOME;
  const home = homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Sluice');
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Sluice');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'sluice');
}
