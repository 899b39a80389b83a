import { parseArgs } from 'node:util';
import type { Lockout, LockoutLimit } from '../auth/lockouts.js';
import { callControl } from './controlClient.js';
import { dataDirOption, supportDirOf } from './dataDirOption.js';
import { textTable } from './textTable.js';
import { UsageError } from './usageError.js';
import { terminalJson } from './terminalJson.js';

const USAGE = 'usage: sluice lockouts list [--json] | lockouts clear ID|--all';

const LIMITS: Record<LockoutLimit, string> = {
  exchange: 'failed pairing exchanges',
  unverifiedBearers: 'tokens that do not verify',
  requests: 'requests per minute',
};

const whoText = (lockout: Lockout) =>
  lockout.tokenName !== undefined ? `${lockout.tokenName} (${lockout.who})` : lockout.who === '*' ? 'all callers' : lockout.who;

function table(lockouts: Lockout[]): string {
  return textTable([
    ['ID', 'LIMIT', 'WHO', 'STATE', 'COUNT', 'UNTIL'],
    ...lockouts.map((l) => [l.id, LIMITS[l.limit] ?? l.limit, whoText(l), l.locked ? 'locked' : 'counting', String(l.count), l.until]),
  ]);
}

async function list(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...dataDirOption, json: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new UsageError(USAGE);
  const lockouts = (await callControl(supportDirOf(argv), 'lockouts.list')) as Lockout[];
  if (values.json) process.stdout.write(terminalJson(lockouts));
  else process.stdout.write(lockouts.length ? `${table(lockouts)}\n` : 'nothing is locked out\n');
}

async function clear(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...dataDirOption, all: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  const all = values.all === true;
  if (all ? positionals.length > 0 : positionals.length !== 1) throw new UsageError('usage: sluice lockouts clear ID|--all');
  const params = all ? { all: true } : { id: positionals[0] };
  const { cleared } = (await callControl(supportDirOf(argv), 'lockouts.clear', params)) as { cleared: Lockout[] };
  const lines = cleared.map((lockout) => `cleared ${lockout.id}`);
  process.stdout.write(`${lines.length ? lines.join('\n') : 'nothing was locked out'}\n`);
}

const subcommands = new Map([
  ['list', list],
  ['clear', clear],
]);

/** `sluice lockouts list|clear`: what the running application's limits hold back, and clearing it. */
export async function lockouts(argv: string[]): Promise<void> {
  // The subcommand is the first word that is not an option (`--data-dir DIR` may come before it).
  const { tokens } = parseArgs({ args: argv, options: dataDirOption, strict: false, allowPositionals: true, tokens: true });
  const first = tokens.find((token) => token.kind === 'positional');
  const name = first?.value;
  const rest = first ? argv.filter((_, index) => index !== first.index) : argv;
  const subcommand = name === undefined ? undefined : subcommands.get(name);
  if (!subcommand) throw new UsageError(name === undefined ? USAGE : `unknown lockouts command "${name}" (${USAGE})`);
  await subcommand(rest);
}
