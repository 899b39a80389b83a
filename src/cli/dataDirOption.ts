import { parseArgs } from 'node:util';
import { resolveSupportDir } from '../platform/supportDir.js';

/** The `--data-dir` option every command takes. */
export const dataDirOption = { 'data-dir': { type: 'string' } } as const;

/** The support directory a command line names, read before the command parses the rest. */
export function supportDirOf(argv: string[]): string {
  const { values } = parseArgs({ args: argv, options: dataDirOption, strict: false, allowPositionals: true });
  return resolveSupportDir(typeof values['data-dir'] === 'string' ? values['data-dir'] : undefined);
}
