import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOKENS_FILE, TokenStore } from '../../../src/auth/tokenStore.js';
import { CONFIG_FILE, readConfig, writeConfig, type SavedConnection } from '../../../src/db/connections/savedConnections.js';
import { type CredentialStore, osStoreName } from '../../../src/platform/credentialStore.js';
import { probeCredentialStore } from '../../../src/platform/credentialProbe.js';
import { chooseSecretHome, describeSecretHome, type SecretHome } from '../../../src/platform/secretHome.js';

/** An OS store stand-in: a map, and a way to make its nth `set` or `delete` fail as a crash would. */
class MemoryStore implements CredentialStore {
  readonly name = 'the test keyring';
  readonly entries = new Map<string, string>();
  failSetAt = Infinity;
  failDelete = false;
  private sets = 0;
  get(account: string) {
    return this.entries.get(account);
  }
  set(account: string, secret: string) {
    if (++this.sets >= this.failSetAt) throw new Error('crash while writing the store');
    this.entries.set(account, secret);
  }
  delete(account: string) {
    if (this.failDelete) throw new Error('crash while deleting from the store');
    this.entries.delete(account);
  }
}

const NOW = Date.parse('2026-01-01T00:00:00Z');
const mint = { level: 'readOnly', connections: 'all', expiresInDays: null, now: NOW } as const;
const PG: SavedConnection = {
  id: 'pg',
  name: 'Shop',
  engine: 'postgres',
  url: 'postgres://app:s%40cret@db.local:5432/shop',
  externalAccess: 'readOnly',
  aiPolicy: 'askEachTime',
};

let dir: string;
let notices: string[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-secrets-'));
  notices = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const notice = (line: string) => notices.push(line);
const home = (store: MemoryStore | undefined, env: NodeJS.ProcessEnv = {}): SecretHome =>
  chooseSecretHome(dir, {
    env,
    notice,
    probe: () => (store ? { ok: true } : { ok: false, reason: 'no Secret Service answered on the session D-Bus (test)' }),
    ...(store ? { store } : {}),
  });
const tokensFile = () => readFileSync(join(dir, TOKENS_FILE), 'utf8');
const configFile = () => readFileSync(join(dir, CONFIG_FILE), 'utf8');

describe('choosing where secrets live', () => {
  it('takes the OS store when it answers, and says so', () => {
    const secrets = home(new MemoryStore());
    expect(secrets.target).toBe('store');
    expect(describeSecretHome(secrets, ['tokens.json', 'config.json'])).toBe('secrets are in the test keyring');
  });

  it('falls back to the files when no store answers, and announces why', () => {
    const secrets = home(undefined);
    expect(secrets.target).toBe('file');
    expect(describeSecretHome(secrets, ['tokens.json', 'config.json'])).toBe(
      `no Secret Service answered on the session D-Bus (test); secrets stay in tokens.json and config.json in ${dir} (mode 0600)`,
    );
  });

  it('SLUICE_SECRETS=file keeps them in the files even where the store answers; other values are refused', () => {
    const secrets = home(new MemoryStore(), { SLUICE_SECRETS: 'file' });
    expect([secrets.target, secrets.reason]).toEqual(['file', 'SLUICE_SECRETS=file']);
    expect(() => home(new MemoryStore(), { SLUICE_SECRETS: 'keychain' })).toThrow('SLUICE_SECRETS must be "file" or unset, not "keychain"');
  });

  it('names the store of each operating system', () => {
    expect(['darwin', 'win32', 'linux', 'freebsd'].map((platform) => osStoreName(platform as NodeJS.Platform))).toEqual([
      'the macOS login keychain',
      'the Windows Credential Manager',
      'the Secret Service keyring',
      'the Secret Service keyring',
    ]);
  });

  it('the real probe answers within its bound, with a reason when it fails', () => {
    const started = Date.now();
    const result = probeCredentialStore();
    expect(Date.now() - started).toBeLessThan(6_000);
    if (!result.ok) expect(result.reason).toMatch(/^(no Secret Service answered on the session D-Bus|the .+ did not answer)/);
  });
});

describe('token secrets', () => {
  it('with the OS store, the file keeps no salt and no hash, and the token verifies after a reopen', () => {
    const store = new MemoryStore();
    const { record, plaintext } = TokenStore.open(join(dir, TOKENS_FILE), home(store)).mint({ name: 'a', ...mint });
    expect(tokensFile()).not.toContain(record.hash);
    expect(tokensFile()).not.toContain('"salt"');
    expect(store.entries).toEqual(new Map([[`token:${record.id}@${dir}`, `${record.salt}:${record.hash}`]]));
    expect(TokenStore.open(join(dir, TOKENS_FILE), home(store)).verify(plaintext, NOW).ok).toBe(true);
  });

  it('moves from the file into the store, and survives a crash while the store is being written', () => {
    const file = TokenStore.open(join(dir, TOKENS_FILE), home(undefined));
    const a = file.mint({ name: 'a', ...mint });
    const b = file.mint({ name: 'b', ...mint });
    const before = tokensFile();
    expect(before).toContain(a.record.hash);

    const store = new MemoryStore();
    store.failSetAt = 2;
    expect(() => TokenStore.open(join(dir, TOKENS_FILE), home(store))).toThrow('crash while writing the store');
    // The file was not rewritten: both secrets are still there.
    expect(tokensFile()).toBe(before);

    store.failSetAt = Infinity;
    const moved = TokenStore.open(join(dir, TOKENS_FILE), home(store));
    expect(notices).toEqual(['moved 2 token secrets from tokens.json into the test keyring']);
    expect(tokensFile()).not.toContain(a.record.hash);
    expect(tokensFile()).not.toContain(b.record.hash);
    expect(store.entries.size).toBe(2);
    expect(moved.verify(a.plaintext, NOW).ok).toBe(true);
    expect(moved.verify(b.plaintext, NOW).ok).toBe(true);
  });

  it('moves back into the file (SLUICE_SECRETS=file), and survives a crash before the store forgets them', () => {
    const store = new MemoryStore();
    const { record, plaintext } = TokenStore.open(join(dir, TOKENS_FILE), home(store)).mint({ name: 'a', ...mint });
    store.failDelete = true;
    expect(() => TokenStore.open(join(dir, TOKENS_FILE), home(store, { SLUICE_SECRETS: 'file' }))).toThrow(
      'crash while deleting from the store',
    );
    // The file was written first: the secret is in both places, never in neither.
    expect(tokensFile()).toContain(record.hash);
    expect(store.entries.size).toBe(1);

    store.failDelete = false;
    notices = [];
    const back = TokenStore.open(join(dir, TOKENS_FILE), home(store, { SLUICE_SECRETS: 'file' }));
    expect(store.entries.size).toBe(0);
    expect(back.verify(plaintext, NOW).ok).toBe(true);
    // On a machine with no store at all, the file alone is enough.
    expect(TokenStore.open(join(dir, TOKENS_FILE), home(undefined)).verify(plaintext, NOW).ok).toBe(true);
  });

  it('a secret the store cannot give is announced; the token is kept, listed, revocable, and never verifies', () => {
    const store = new MemoryStore();
    const { record, plaintext } = TokenStore.open(join(dir, TOKENS_FILE), home(store)).mint({ name: 'a', ...mint });
    const offline = TokenStore.open(join(dir, TOKENS_FILE), home(undefined));
    expect(notices).toEqual([`1 token secret not in tokens.json, and no credential store answered, so unusable: token:${record.id}`]);
    expect(offline.verify(plaintext, NOW)).toEqual({ ok: false, reason: 'unknown' });
    expect(offline.revoke(record.id, NOW)?.revokedAt).toBe(new Date(NOW).toISOString());
    // Written without a secret, it still finds its own in the store once the store answers.
    expect(TokenStore.open(join(dir, TOKENS_FILE), home(store)).verify(plaintext, NOW)).toMatchObject({ ok: false, reason: 'revoked' });
  });
});

describe('database passwords', () => {
  it('go to the store; the config keeps the URL without them, and reading puts them back in memory', () => {
    const store = new MemoryStore();
    writeConfig(dir, { connections: [PG] }, home(store));
    expect(configFile()).not.toContain('s%40cret');
    expect(JSON.parse(configFile()).connections[0]).toMatchObject({
      url: 'postgres://app@db.local:5432/shop',
      passwordIn: 'credentialStore',
    });
    expect(store.entries).toEqual(new Map([[`connection:pg@${dir}`, 's%40cret']]));
    expect(readConfig(dir, home(store))?.connections).toEqual([PG]);
  });

  it('move from the config into the store and back, surviving a crash between the two writes', () => {
    writeConfig(dir, { connections: [PG] });
    expect(configFile()).toContain('s%40cret');
    const store = new MemoryStore();
    store.failSetAt = 1;
    expect(() => readConfig(dir, home(store))).toThrow('crash while writing the store');
    expect(configFile()).toContain('s%40cret');

    store.failSetAt = Infinity;
    expect(readConfig(dir, home(store))?.connections).toEqual([PG]);
    expect(notices).toEqual(['moved 1 database password from config.json into the test keyring']);
    expect(configFile()).not.toContain('s%40cret');

    store.failDelete = true;
    expect(() => readConfig(dir, home(store, { SLUICE_SECRETS: 'file' }))).toThrow('crash while deleting from the store');
    expect(configFile()).toContain('s%40cret');
    store.failDelete = false;
    expect(readConfig(dir, home(store, { SLUICE_SECRETS: 'file' }))?.connections).toEqual([PG]);
    expect(store.entries.size).toBe(0);
    expect(JSON.parse(configFile()).connections[0]).not.toHaveProperty('passwordIn');
  });

  it('a removed connection takes its password out of the store', () => {
    const store = new MemoryStore();
    writeConfig(dir, { connections: [PG] }, home(store));
    writeConfig(dir, { connections: [] }, home(store));
    expect(store.entries.size).toBe(0);
  });
});
