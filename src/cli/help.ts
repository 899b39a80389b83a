import { COMMAND_USAGES, type CommandUsage } from './commandUsages.js';
import { nearest } from './nearest.js';

const COMMON_OPTIONS: Array<[string, string]> = [
  ['--data-dir DIR', "the support directory (default: SLUICE_HOME, else the platform's)"],
  ['-h, --help', 'this help'],
];

/** The words that name a command: those before the first option. */
function commandWords(argv: string[]): string[] {
  const firstOption = argv.findIndex((arg) => arg.startsWith('-'));
  return firstOption < 0 ? argv : argv.slice(0, firstOption);
}

/** The usages the command line names: the longest exact match, else every subcommand under it. */
export function usagesFor(argv: string[]): CommandUsage[] {
  const words = commandWords(argv);
  for (let n = words.length; n > 0; n--) {
    const key = words.slice(0, n).join(' ');
    const exact = COMMAND_USAGES.filter((u) => u.command === key);
    if (exact.length > 0) return exact;
    const under = COMMAND_USAGES.filter((u) => u.command.startsWith(`${key} `));
    if (under.length > 0) return under;
  }
  return [];
}

/** True when `-h` or `--help` comes before any `--` (after it, arguments are positional). */
export function asksForHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

const usageLine = (u: CommandUsage) => `usage: sluice ${u.command}${u.synopsis ? ` ${u.synopsis}` : ''}`;

function detail(u: CommandUsage): string {
  const options = [...u.options, ...COMMON_OPTIONS];
  const width = Math.max(...options.map(([flag]) => flag.length));
  return [
    usageLine(u),
    `  ${u.summary}`,
    '',
    'options:',
    ...options.map(([flag, help]) => `  ${flag.padEnd(width)}  ${help}`),
    '',
    'example:',
    `  ${u.example}`,
  ].join('\n');
}

/** Every command, one line each. */
export function overview(): string {
  const width = Math.max(...COMMAND_USAGES.map((u) => u.command.length));
  return [
    'usage: sluice <command> [options] [--data-dir DIR]',
    '',
    ...COMMAND_USAGES.map((u) => `  ${u.command.padEnd(width)}  ${u.summary}`),
    '',
    'sluice help COMMAND (or sluice COMMAND --help) shows its options and an example.',
  ].join('\n');
}

/** `sluice help [COMMAND…]` and `--help`: the named command in detail, or the overview. */
export function helpText(argv: string[]): string | undefined {
  if (commandWords(argv).length === 0) return overview();
  const usages = usagesFor(argv);
  return usages.length === 0 ? undefined : usages.map(detail).join('\n\n');
}

/** The one line for an unknown option: the nearest option the command takes, when one is close. */
export function unknownOption(argv: string[], option: string): string {
  const usages = usagesFor(argv);
  const flags = [...usages.flatMap((u) => u.options), ...COMMON_OPTIONS].flatMap(([flag]) =>
    flag.split(/[ ,]+/).filter((word) => word.startsWith('-')),
  );
  const guess = nearest(option, [...new Set(flags)]);
  if (guess !== undefined) return `unknown option ${option}; did you mean ${guess}?`;
  const command = usages.length === 1 ? usages[0]!.command : commandWords(argv).slice(0, 1).join(' ');
  return `unknown option ${option} (sluice ${command} --help lists the options)`;
}
