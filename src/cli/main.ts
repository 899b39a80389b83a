#!/usr/bin/env node
import { ConfigError } from '../app/config.js';
import { serve } from './serve.js';
import { UsageError } from './usageError.js';

const commands: Record<string, (argv: string[]) => Promise<void>> = { serve };

const USAGE = 'usage: sluice serve [--port N] [--data-dir DIR] [--no-auth] [--log-requests]';

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (!command) throw new UsageError(`unknown command "${name}" (${USAGE})`);
  await command(rest);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const usage =
      error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`sluice: ${(error as Error).message}\n`);
    process.exitCode = usage ? 2 : error instanceof ConfigError ? 78 : 1;
  },
);
