import { describe, expect, it } from 'vitest';
import { COMMAND_USAGES } from '../../../src/cli/commandUsages.js';
import { asksForHelp, helpText, overview, unknownOption, usagesFor } from '../../../src/cli/help.js';
import { editDistance, nearest } from '../../../src/cli/nearest.js';
import { runSluice } from '../../helpers/cli.js';

/** `--help`, `-h`, `sluice help` and the "did you mean" of an unknown option, all from one usage table. */

const CONNECTIONS_REMOVE_HELP = `usage: sluice connections remove ID [--yes]
  forget a saved connection (asks first in a terminal)

options:
  --yes           do not ask; needed when stdin is not a terminal
  --data-dir DIR  the support directory (default: SLUICE_HOME, else the platform's)
  -h, --help      this help

example:
  sluice connections remove shop --yes
`;

describe('the usage table', () => {
  it('names each command once, each with a summary and an example that runs that command', () => {
    const names = COMMAND_USAGES.map((u) => u.command);
    expect(new Set(names).size).toBe(names.length);
    for (const usage of COMMAND_USAGES) {
      expect(usage.summary).not.toBe('');
      expect(usage.example.startsWith(`sluice ${usage.command}`)).toBe(true);
    }
  });

  it('finds the longest command the words name, or every subcommand under them', () => {
    expect(usagesFor(['connections', 'add', '--name', 'x']).map((u) => u.command)).toEqual(['connections add']);
    expect(usagesFor(['tokens', 'revoke', 'tok_1']).map((u) => u.command)).toEqual(['tokens revoke']);
    const connections = usagesFor(['connections']).map((u) => u.command);
    expect(connections).toEqual(expect.arrayContaining(['connections list', 'connections add', 'connections update', 'connections remove', 'connections test']));
    expect(connections.every((command) => command.startsWith('connections '))).toBe(true);
    expect(usagesFor(['nothing'])).toEqual([]);
  });

  it('help is asked for by -h or --help, but not after --', () => {
    expect(asksForHelp(['add', '-h'])).toBe(true);
    expect(asksForHelp(['add', '--name', 'x', '--help'])).toBe(true);
    expect(asksForHelp(['open-url', '--', '--help'])).toBe(false);
    expect(asksForHelp(['add', '--name', 'x'])).toBe(false);
  });

  it('a command in detail: usage line, summary, options with one line each, an example', () => {
    expect(`${helpText(['connections', 'remove'])}\n`).toBe(CONNECTIONS_REMOVE_HELP);
    expect(helpText([])).toBe(overview());
    expect(helpText(['bogus'])).toBeUndefined();
  });
});

describe('the nearest option', () => {
  it('edit distance counts insertions, deletions and substitutions', () => {
    expect(editDistance('--nmae', '--name')).toBe(1);
    expect(editDistance('--json', '--json')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('--prot', '--port')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('suggests only an option close enough to be what was meant', () => {
    expect(nearest('--nmae', ['--name', '--id', '--url'])).toBe('--name');
    expect(nearest('--zzzzzz', ['--name', '--id', '--url'])).toBeUndefined();
  });

  it('the message names the nearest option of that command, or where the options are listed', () => {
    expect(unknownOption(['connections', 'add', '--nmae', 'x'], '--nmae')).toBe('unknown option --nmae; did you mean --name?');
    expect(unknownOption(['connections', 'remove', 'shop', '--yse'], '--yse')).toBe('unknown option --yse; did you mean --yes?');
    expect(unknownOption(['serve', '--data-dri', 'x'], '--data-dri')).toBe('unknown option --data-dri; did you mean --data-dir?');
    expect(unknownOption(['tokens', 'list', '--zzzz'], '--zzzz')).toBe('unknown option --zzzz (sluice tokens list --help lists the options)');
  });
});

describe('the command line', () => {
  it.each(COMMAND_USAGES.map((u) => [u.command]))('sluice %s answers --help and -h with its usage and example (exit 0)', (command) => {
    const words = command.split(' ');
    const expected = `${helpText(words)}\n`;
    expect(expected).toContain(`usage: sluice ${command}`);
    expect(expected).toContain('\nexample:\n  sluice ');
    for (const flag of ['--help', '-h']) {
      const result = runSluice([...words, flag]);
      expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({ status: 0, stdout: expected, stderr: '' });
    }
  });

  it('connections add --help prints its usage, even after other options (it used to say "Unknown option")', () => {
    const result = runSluice(['connections', 'add', '--name', 'x', '--help']);
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 0, stdout: `${helpText(['connections', 'add'])}\n` });
  });

  it('sluice help lists every command; sluice help COMMAND shows one; an unknown one is refused', () => {
    const all = runSluice(['help']);
    expect({ status: all.status, stdout: all.stdout }).toEqual({ status: 0, stdout: `${overview()}\n` });
    for (const usage of COMMAND_USAGES) expect(all.stdout).toMatch(new RegExp(`^  ${usage.command} +${usage.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    const one = runSluice(['help', 'connections', 'remove']);
    expect({ status: one.status, stdout: one.stdout }).toEqual({ status: 0, stdout: CONNECTIONS_REMOVE_HELP });
    const bogus = runSluice(['help', 'bogus']);
    expect({ status: bogus.status, stderr: bogus.stderr }).toEqual({ status: 2, stderr: 'sluice: unknown command "bogus" (sluice help lists them)\n' });
  });

  it('an unknown option suggests the nearest one, exit 2', () => {
    const result = runSluice(['connections', 'add', '--nmae', 'x', '--sqlite', 'a.db']);
    expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
      status: 2,
      stdout: '',
      stderr: 'sluice: unknown option --nmae; did you mean --name?\n',
    });
  });
});
