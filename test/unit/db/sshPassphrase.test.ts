import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_FILE, readConfig, type SavedConnection, withoutPassword, writeConfig } from '../../../src/db/connections/savedConnections.js';
import { parseSshOptions } from '../../../src/db/reach/sshOptions.js';
import { keyPassphraseProblem } from '../../../src/db/reach/sshTunnel.js';
import type { CredentialStore } from '../../../src/platform/credentialStore.js';
import { chooseSecretHome, type SecretHome } from '../../../src/platform/secretHome.js';

class MemoryStore implements CredentialStore {
  readonly name = 'the test keyring';
  readonly entries = new Map<string, string>();
  get(account: string) {
    return this.entries.get(account);
  }
  set(account: string, secret: string) {
    this.entries.set(account, secret);
  }
  delete(account: string) {
    this.entries.delete(account);
  }
}

const PASSPHRASE = 'correct horse battery';
let dir: string;
let notices: string[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-sshpass-'));
  notices = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const home = (store: MemoryStore | undefined, env: NodeJS.ProcessEnv = {}): SecretHome =>
  chooseSecretHome(dir, {
    env,
    notice: (line) => notices.push(line),
    probe: () => (store ? { ok: true } : { ok: false, reason: 'no Secret Service answered (test)' }),
    ...(store ? { store } : {}),
  });
const configFile = () => readFileSync(join(dir, CONFIG_FILE), 'utf8');
const tunneled = (): SavedConnection => ({
  id: 'pg',
  name: 'Shop',
  engine: 'postgres',
  url: 'postgres://app:pw@db.local:5432/shop',
  externalAccess: 'readOnly',
  aiPolicy: 'askEachTime',
  ssh: { host: 'bastion', user: 'deploy', keyFile: join(dir, 'id_ed25519'), passphrase: PASSPHRASE },
});
const passphraseOf = (c: SavedConnection | undefined) => (c && 'ssh' in c ? c.ssh?.passphrase : undefined);
const account = () => `connection-ssh:pg@${dir}`;

describe('an SSH key passphrase of a saved connection', () => {
  it('goes to the credential store, never into config.json, and comes back on read', () => {
    const store = new MemoryStore();
    writeConfig(dir, { connections: [tunneled()] }, home(store));
    expect(configFile()).not.toContain(PASSPHRASE);
    expect(JSON.parse(configFile()).connections[0].ssh.passphraseIn).toBe('credentialStore');
    expect(store.entries.get(account())).toBe(PASSPHRASE);
    const read = readConfig(dir, home(store));
    expect(passphraseOf(read?.connections[0])).toBe(PASSPHRASE);
    expect(JSON.stringify(withoutPassword(read!.connections[0]!))).not.toContain(PASSPHRASE);
    expect(notices).toEqual([]);
  });

  it('stays in config.json (mode 0600) with the file fallback', () => {
    writeConfig(dir, { connections: [tunneled()] }, home(undefined));
    expect(JSON.parse(configFile()).connections[0].ssh.passphrase).toBe(PASSPHRASE);
    expect(statSync(join(dir, CONFIG_FILE)).mode & 0o777).toBe(0o600);
    expect(passphraseOf(readConfig(dir, home(undefined))?.connections[0])).toBe(PASSPHRASE);
  });

  it('moves into the store when it answers, and back into the file with SLUICE_SECRETS=file', () => {
    writeConfig(dir, { connections: [tunneled()] }, home(undefined));
    const store = new MemoryStore();
    expect(passphraseOf(readConfig(dir, home(store))?.connections[0])).toBe(PASSPHRASE);
    expect(configFile()).not.toContain(PASSPHRASE);
    expect(store.entries.get(account())).toBe(PASSPHRASE);
    expect(notices).toContain('moved 1 SSH key passphrase from config.json into the test keyring');

    notices = [];
    expect(passphraseOf(readConfig(dir, home(store, { SLUICE_SECRETS: 'file' }))?.connections[0])).toBe(PASSPHRASE);
    expect(JSON.parse(configFile()).connections[0].ssh).toMatchObject({ passphrase: PASSPHRASE });
    expect(configFile()).not.toContain('passphraseIn');
    expect(store.entries.size).toBe(0);
    expect(notices).toContain('moved 1 SSH key passphrase from the test keyring into config.json');
  });

  it('is forgotten by the store when the tunnel or the connection goes', () => {
    const store = new MemoryStore();
    writeConfig(dir, { connections: [tunneled()] }, home(store));
    const { ssh: _ssh, ...direct } = tunneled() as Extract<SavedConnection, { url: string }>;
    writeConfig(dir, { connections: [direct] }, home(store));
    expect(store.entries.has(account())).toBe(false);
    expect(store.entries.size).toBe(1); // the database password
  });

  it('is refused without a key file', () => {
    expect(() => parseSshOptions({ host: 'bastion', passphrase: 'x' }, 'ssh')).toThrow(/passphrase/);
  });
});

describe('checking a passphrase against its key', () => {
  it('says a wrong passphrase cannot decrypt the key, and accepts the right one', async () => {
    const key = join(dir, 'id_ed25519');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', PASSPHRASE, '-f', key]);
    expect(await keyPassphraseProblem(key, PASSPHRASE)).toBeUndefined();
    const wrong = await keyPassphraseProblem(key, 'wrong');
    expect(wrong).toBe(`the SSH key ${key} cannot be decrypted with the given passphrase`);
    expect(wrong).not.toContain('wrong');
    expect(await keyPassphraseProblem(join(dir, 'missing'), PASSPHRASE)).toMatch(/cannot read the SSH key/);
  });
});
