import { resolve } from 'node:path';
import { sluiceProgram } from './sluiceProgram.js';

/**
 * How a client or the login service starts this Sluice: node and this package's CLI script by absolute
 * paths (the installed ones after `npm install -g`, never a PATH lookup), and the support directory when
 * the user chose one, since a program started by a client or at login sees neither `--data-dir` nor
 * `SLUICE_HOME`.
 */
export function selfCommand(dataDirFlag: string | undefined): { node: string; script: string; dataDir?: string } {
  const [node, script] = sluiceProgram() as [string, string];
  const chosen = dataDirFlag || process.env.SLUICE_HOME;
  return { node, script, ...(chosen ? { dataDir: resolve(chosen) } : {}) };
}
