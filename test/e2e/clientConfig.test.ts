import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SLUICE_BIN, runSluice } from '../helpers/cli.js';

/** `sluice client-config`, run as a user runs it, against a temporary home (Linux paths). */

const root = mkdtempSync(join(tmpdir(), 'sluice-client-config-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let homes = 0;
function freshHome() {
  const home = join(root, `home ${++homes}`);
  mkdirSync(home);
  return { home, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), SLUICE_HOME: '', APPDATA: '' } };
}

const bridge = { command: process.execPath, args: [SLUICE_BIN, 'bridge'] };

const CASES = [
  { client: 'claude-desktop', file: '.config/Claude/claude_desktop_config.json', key: 'mcpServers', entry: bridge, title: 'Claude Desktop' },
  { client: 'claude-code', file: '.claude.json', key: 'mcpServers', entry: { type: 'stdio', ...bridge }, title: 'Claude Code' },
  { client: 'cursor', file: '.cursor/mcp.json', key: 'mcpServers', entry: bridge, title: 'Cursor' },
  { client: 'vscode', file: '.config/Code/User/mcp.json', key: 'servers', entry: { type: 'stdio', ...bridge }, title: 'VS Code' },
  { client: 'windsurf', file: '.codeium/windsurf/mcp_config.json', key: 'mcpServers', entry: bridge, title: 'Windsurf' },
] as const;

const backupsOf = (file: string) =>
  readdirSync(dirname(file)).filter((name) => name.startsWith(`${file.split('/').at(-1)}.`) && name.endsWith('.bak'));

describe.runIf(process.platform !== 'win32')('sluice client-config', () => {
  it.each(CASES)('$client prints its exact configuration, and where it goes', ({ client, file, key, entry, title }) => {
    const { home, env } = freshHome();
    const result = runSluice(['client-config', client], env);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${JSON.stringify({ [key]: { sluice: entry } }, null, 2)}\n`);
    expect(result.stderr).toBe(`# ${title}: merge this into ${join(home, file)} (sluice client-config ${client} --write does it, with a backup)\n`);
  });

  it('names the support directory when the user chose one, and never a token', () => {
    const { env } = freshHome();
    const result = runSluice(['client-config', 'cursor', '--data-dir', join(root, 'my data')], env);
    expect(JSON.parse(result.stdout)).toEqual({
      mcpServers: { sluice: { command: process.execPath, args: [SLUICE_BIN, 'bridge', '--data-dir', join(root, 'my data')] } },
    });
    expect(result.stdout).not.toMatch(/sl_|slb_|SLUICE_TOKEN/);
  });

  it.each(CASES)('$client --write merges into the file, keeping everything else, with a backup; again is a no-op', ({ client, file, key, entry }) => {
    const { home, env } = freshHome();
    const path = join(home, file);
    mkdirSync(dirname(path), { recursive: true });
    const before = { theme: 'dark', [key]: { other: { command: 'other-server', args: ['--x'] }, sluice: { command: 'old' } }, nested: { a: [1, 2] } };
    const original = `${JSON.stringify(before, null, 4)}\n`;
    writeFileSync(path, original);
    chmodSync(path, 0o640);

    const first = runSluice(['client-config', client, '--write'], env);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    const backups = backupsOf(path);
    expect(backups).toHaveLength(1);
    expect(backups[0]).toMatch(/^[\w.]+\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z\.bak$/);
    const backup = join(dirname(path), backups[0] as string);
    expect(first.stdout.split('\n')[0]).toBe(`Added "sluice" to ${path} (the previous file is in ${backup}).`);
    expect(readFileSync(backup, 'utf8')).toBe(original);
    const after = readFileSync(path, 'utf8');
    expect(after).toBe(
      `${JSON.stringify({ theme: 'dark', [key]: { other: { command: 'other-server', args: ['--x'] }, sluice: entry }, nested: { a: [1, 2] } }, null, 2)}\n`,
    );
    expect(statSync(path).mode & 0o777).toBe(0o640);

    const second = runSluice(['client-config', client, '--write'], env);
    expect(second.status).toBe(0);
    expect(second.stdout.split('\n')[0]).toBe(`${path} already has this configuration; nothing changed.`);
    expect(readFileSync(path, 'utf8')).toBe(after);
    expect(backupsOf(path)).toHaveLength(1);
  });

  it('--write creates a missing file (and its folder) with only the sluice server, mode 0600', () => {
    const { home, env } = freshHome();
    const result = runSluice(['client-config', 'claude-desktop', '--write'], env);
    const path = join(home, '.config/Claude/claude_desktop_config.json');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(
      `Added "sluice" to ${path}.\n` +
        'Quit and reopen Claude Desktop; Settings → Developer lists "sluice" as running. Sluice must be running (sluice serve, or sluice service install).\n',
    );
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ mcpServers: { sluice: bridge } });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(backupsOf(path)).toEqual([]);
  });

  it.each([
    ['{"mcpServers": {"a": 1},}\n', (path: string) => `sluice: ${path} is not valid JSON (`],
    ['// my servers\n{"mcpServers": {}}\n', (path: string) => `sluice: ${path} is not valid JSON (`],
    ['[1, 2]\n', (path: string) => `sluice: ${path} does not hold a JSON object; it was left untouched.\n`],
    ['{"mcpServers": []}\n', (path: string) => `sluice: "mcpServers" in ${path} is not an object; it was left untouched.\n`],
  ])('--write refuses %j and leaves the file untouched, with no backup', (text, message) => {
    const { home, env } = freshHome();
    const path = join(home, '.cursor/mcp.json');
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    const result = runSluice(['client-config', 'cursor', '--write'], env);
    expect(result.status).toBe(1);
    expect(result.stderr.startsWith(message(path))).toBe(true);
    expect(result.stderr.split('\n')).toHaveLength(2);
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(readdirSync(dirname(path))).toEqual(['mcp.json']);
  });

  it('--write updates a configuration kept as a symbolic link where it really lives', () => {
    const { home, env } = freshHome();
    const real = join(home, 'dotfiles', 'windsurf.json');
    mkdirSync(dirname(real), { recursive: true });
    writeFileSync(real, '{"mcpServers": {}}\n');
    const link = join(home, '.codeium/windsurf/mcp_config.json');
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(real, link);
    const result = runSluice(['client-config', 'windsurf', '--write'], env);
    expect(result.status).toBe(0);
    expect(JSON.parse(readFileSync(real, 'utf8'))).toEqual({ mcpServers: { sluice: bridge } });
    expect(readFileSync(link, 'utf8')).toBe(readFileSync(real, 'utf8'));
    expect(backupsOf(real)).toHaveLength(1);
  });

  it('a mistake on the command line is one line and exit 2', () => {
    const { env } = freshHome();
    const unknown = runSluice(['client-config', 'zed'], env);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toBe('sluice: unknown client "zed" (one of: claude-desktop, claude-code, cursor, vscode, windsurf)\n');
    const none = runSluice(['client-config'], env);
    expect(none.status).toBe(2);
    expect(none.stderr).toBe('sluice: usage: sluice client-config <claude-desktop|claude-code|cursor|vscode|windsurf> [--write] [--data-dir DIR]\n');
  });
});
