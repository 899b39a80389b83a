import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readHandshake } from '../core/handshake.js';
import { CONSOLE_SECRET_FILE, consoleSignInLink } from '../console/consoleAccess.js';
import { dataDirOption, supportDirOf } from './dataDirOption.js';
import { UsageError } from './usageError.js';

/** `sluice console`: prints the one-time link that signs a browser in to the running application's console. */
export async function consoleLink(argv: string[]): Promise<void> {
  const { positionals } = parseArgs({ args: argv, options: dataDirOption, strict: true, allowPositionals: true });
  if (positionals.length > 0) throw new UsageError('usage: sluice console [--data-dir DIR]');
  const link = currentConsoleLink(supportDirOf(argv));
  if (link === undefined) throw new Error('Sluice is not running with a console (start it with sluice serve)');
  process.stdout.write(`${link}\n`);
}

/** The running application's one-time console link; undefined when it runs without a console. */
export function currentConsoleLink(dataDir: string): string | undefined {
  const port = readHandshake(dataDir)?.consolePort;
  if (port === undefined) return undefined;
  const secret = readFileSync(join(dataDir, CONSOLE_SECRET_FILE), 'utf8').trim();
  return consoleSignInLink(port, secret);
}
