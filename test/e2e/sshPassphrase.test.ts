import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshdProblem, startSshd, type TestSshd } from '../helpers/sshServer.js';
import { SLUICE_BIN } from '../helpers/cli.js';
import { availableServers, MYSQL_URL, POSTGRES_URL } from '../helpers/engines.js';

/**
 * A saved SSH key passphrase, end to end: given on stdin to `connections add`, refused when it does not
 * decrypt the key, and used by the tunnel to a real OpenSSH server (started as in sshTunnel.test.ts).
 */
const sshdMissing = sshdProblem('SSH passphrase');

const servers = sshdMissing ? [] : await availableServers();
const PASSPHRASE = 'test-passphrase';
const user = execFileSync('id', ['-un'], { encoding: 'utf8' }).trim();
const dir = mkdtempSync(join(tmpdir(), 'sluice-sshpass-'));
const file = (name: string) => join(dir, name);
const keygen = (name: string, passphrase = '') =>
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', name, '-f', file(name)]);

/**
 * The CLI with `input` on its stdin (a pipe, not a terminal); secrets in the files, never the desktop
 * keyring; the suite's directory as the home, so that no ~/.ssh of the person's is read.
 */
const sluice = (args: string[], input: string) =>
  spawnSync(process.execPath, [SLUICE_BIN, ...args], {
    encoding: 'utf8',
    input,
    env: { ...process.env, SLUICE_SECRETS: 'file', SSH_AUTH_SOCK: '', HOME: dir },
    timeout: 20_000,
  });

let sshd: TestSshd | undefined;
let port = 22;

beforeAll(async () => {
  keygen('locked_key', PASSPHRASE);
  if (servers.length === 0) return;
  keygen('host_key');
  writeFileSync(file('authorized_keys'), readFileSync(file('locked_key.pub'), 'utf8'));
  sshd = await startSshd(dir, file('host_key'), file('authorized_keys'));
  port = sshd.port;
});

afterAll(() => {
  sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const addArgs = (dataDir: string, url: string) => [
  'connections', 'add', '--name', 'Locked', '--id', 'locked', '--url', url,
  '--ssh', `${user}@127.0.0.1:${port}`, '--ssh-key', file('locked_key'), '--ssh-passphrase-stdin', '--no-check',
  '--data-dir', dataDir,
];

describe('an SSH key passphrase given on stdin', () => {
  it('is refused before anything is saved when it does not decrypt the key', () => {
    const dataDir = mkdtempSync(join(dir, 'data-'));
    const added = sluice(addArgs(dataDir, POSTGRES_URL), 'not the passphrase\n');
    expect(added.status).not.toBe(0);
    expect(added.stderr).toContain(`the SSH key ${file('locked_key')} cannot be decrypted with the given passphrase; nothing was saved`);
    expect(added.stderr).not.toContain('not the passphrase');
    expect(existsSync(join(dataDir, 'config.json')) ? readFileSync(join(dataDir, 'config.json'), 'utf8') : '').not.toContain('locked');
  });

  it.skipIf(servers.length === 0)('is saved, never printed, and opens the tunnel', () => {
    const engine = servers[0]!;
    const dataDir = mkdtempSync(join(dir, 'data-'));
    const added = sluice(addArgs(dataDir, engine === 'postgres' ? POSTGRES_URL : MYSQL_URL), `${PASSPHRASE}\nignored second line\n`);
    expect(added.stderr).not.toContain(PASSPHRASE);
    expect(added.stdout).toBe('added locked\n');
    const listed = sluice(['connections', 'list', '--json', '--data-dir', dataDir], '');
    expect(listed.stdout).toContain('locked_key');
    expect(listed.stdout).not.toContain(PASSPHRASE);
    expect(sluice(['connections', 'trust-host', 'locked', '--data-dir', dataDir], '').status).toBe(0);
    const tested = sluice(['connections', 'test', 'locked', '--data-dir', dataDir], '');
    expect(tested.stderr).toBe('');
    expect(tested.stdout).toMatch(/^locked: .+, no TLS, \d+ ms\n$/);
  });
});
