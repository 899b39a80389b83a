import { parseArgs } from 'node:util';
import { applySteps, currentTarget, displayCommand, handlerArgs, osSchemeHost, schemeRegistrar } from '../platform/schemeRegistration.js';
import { dataDirOption, supportDirOf } from './dataDirOption.js';
import { sluiceProgram } from './sluiceProgram.js';
import { UsageError } from './usageError.js';

function targetOf(argv: string[], usage: string) {
  const { positionals } = parseArgs({ args: argv, options: dataDirOption, strict: true, allowPositionals: true });
  if (positionals.length > 0) throw new UsageError(usage);
  return currentTarget(sluiceProgram(), supportDirOf(argv));
}

/** `sluice install`: registers the `sluice` URL scheme for the current user, so the OS runs `sluice open-url`. */
export async function install(argv: string[]): Promise<void> {
  const target = targetOf(argv, 'usage: sluice install [--data-dir DIR]');
  const lines = applySteps(schemeRegistrar(process.platform).install(target), osSchemeHost);
  const [command, ...args] = handlerArgs(target) as [string, ...string[]];
  process.stdout.write([...lines, `sluice:// links now run: ${displayCommand(command, args)} URL`, ''].join('\n'));
}

/** `sluice uninstall`: removes what `sluice install` made, and nothing else. */
export async function uninstall(argv: string[]): Promise<void> {
  const target = targetOf(argv, 'usage: sluice uninstall');
  const lines = applySteps(schemeRegistrar(process.platform).uninstall(target, osSchemeHost), osSchemeHost);
  process.stdout.write(lines.length > 0 ? `${lines.join('\n')}\n` : 'nothing to remove: the sluice scheme is not registered for this user\n');
}
