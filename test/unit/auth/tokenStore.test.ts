import { createHash, hash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TOKENS_FILE, TokenStore, type MintOptions } from '../../../src/auth/tokenStore.js';

// Counts hash computations, to show verification hashes only the records sharing the token's prefix.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, hash: vi.fn(actual.hash) };
});

const NOW = Date.parse('2025-03-01T12:00:00.000Z');
const DAY = 86_400_000;

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-tokens-'));
  file = join(dir, TOKENS_FILE);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const options = (overrides: Partial<MintOptions> = {}): MintOptions => ({
  name: 'laptop',
  level: 'readOnly',
  connections: 'all',
  expiresInDays: null,
  now: NOW,
  ...overrides,
});

function tamper(plaintext: string, at: number): string {
  const replacement = plaintext[at] === 'A' ? 'B' : 'A';
  return plaintext.slice(0, at) + replacement + plaintext.slice(at + 1);
}

describe('TokenStore.mint', () => {
  it('returns sl_ and 43 base64url characters, and never writes the plaintext', () => {
    const { plaintext } = TokenStore.open(file).mint(options());
    expect(plaintext).toMatch(/^sl_[A-Za-z0-9_-]{43}$/);
    const raw = readFileSync(file);
    expect(raw.includes(plaintext)).toBe(false);
    expect(raw.includes(plaintext.slice(3))).toBe(false);
  });

  it('stores a salted SHA-256, the prefix, level, connections and expiry', () => {
    const { record, plaintext } = TokenStore.open(file).mint(
      options({ level: 'readWrite', connections: ['a', 'b'], expiresInDays: 7 }),
    );
    expect(record.id).toMatch(/^tok_[0-9a-f]{12}$/);
    expect(record.prefix).toBe(plaintext.slice(3, 11));
    expect(record.salt).toMatch(/^[0-9a-f]{32}$/);
    const expected = createHash('sha256').update(Buffer.from(record.salt, 'hex')).update(plaintext).digest('hex');
    expect(record.hash).toBe(expected);
    expect(record).toMatchObject({
      name: 'laptop',
      level: 'readWrite',
      connections: ['a', 'b'],
      createdAt: new Date(NOW).toISOString(),
      expiresAt: new Date(NOW + 7 * DAY).toISOString(),
    });
    expect(TokenStore.open(file).list()).toEqual([record]);
  });

  it('leaves out expiresAt for a token that never expires', () => {
    const { record } = TokenStore.open(file).mint(options());
    expect(record).not.toHaveProperty('expiresAt');
  });

  it('refuses an expiry that is not one of the choices', () => {
    expect(() => TokenStore.open(file).mint(options({ expiresInDays: 3 }))).toThrow(RangeError);
  });

  it('writes a pretty-printed, mode 0600 file by temp + rename, leaving no temp file', () => {
    TokenStore.open(file).mint(options());
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual([TOKENS_FILE]);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('\n  "version": 1');
    expect(JSON.parse(text)).toMatchObject({ version: 1, tokens: [expect.any(Object)] });
  });
});

describe('TokenStore.verify', () => {
  it('accepts the minted token, also after reopening', () => {
    const store = TokenStore.open(file);
    const { record, plaintext } = store.mint(options());
    expect(store.verify(plaintext, NOW)).toEqual({ ok: true, record });
    expect(TokenStore.open(file).verify(plaintext, NOW)).toEqual({ ok: true, record });
  });

  it('calls an unknown or tampered token unknown', () => {
    const store = TokenStore.open(file);
    const { plaintext } = store.mint(options());
    const other = `sl_${randomBytes(32).toString('base64url')}`;
    expect(store.verify(other, NOW)).toEqual({ ok: false, reason: 'unknown' });
    expect(store.verify(tamper(plaintext, 30), NOW)).toEqual({ ok: false, reason: 'unknown' });
    expect(store.verify(tamper(plaintext, 5), NOW)).toEqual({ ok: false, reason: 'unknown' });
  });

  it('calls a token of the wrong shape unknown without hashing it', () => {
    const store = TokenStore.open(file);
    const { plaintext } = store.mint(options());
    vi.mocked(hash).mockClear();
    for (const bad of [
      '',
      'sl_',
      `xx_${plaintext.slice(3)}`,
      `${plaintext}A`,
      plaintext.slice(0, -1),
      `${plaintext.slice(0, -1)}+`,
      ` ${plaintext}`,
    ]) {
      expect(store.verify(bad, NOW)).toEqual({ ok: false, reason: 'unknown' });
    }
    expect(hash).not.toHaveBeenCalled();
  });

  it('says revoked for a revoked token', () => {
    const store = TokenStore.open(file);
    const { record, plaintext } = store.mint(options());
    store.revoke(record.id, NOW + 1000);
    expect(store.verify(plaintext, NOW + 2000)).toMatchObject({
      ok: false,
      reason: 'revoked',
      record: { id: record.id },
    });
  });

  it('says expired from exactly expiresAt on', () => {
    const store = TokenStore.open(file);
    const { plaintext } = store.mint(options({ expiresInDays: 1 }));
    expect(store.verify(plaintext, NOW + DAY - 1).ok).toBe(true);
    expect(store.verify(plaintext, NOW + DAY)).toMatchObject({ ok: false, reason: 'expired' });
    expect(store.verify(plaintext, NOW + 90 * DAY)).toMatchObject({ ok: false, reason: 'expired' });
  });

  it('hashes once per verification among 2,000 tokens', () => {
    const { plaintext } = TokenStore.open(file).mint(options());
    const contents = JSON.parse(readFileSync(file, 'utf8')) as { version: 1; tokens: unknown[] };
    const model = contents.tokens[0] as Record<string, unknown>;
    for (let i = 1; i < 2000; i++) {
      contents.tokens.push({
        ...model,
        id: `tok_${randomBytes(6).toString('hex')}`,
        prefix: randomBytes(6).toString('base64url'),
        salt: randomBytes(16).toString('hex'),
        hash: randomBytes(32).toString('hex'),
      });
    }
    writeFileSync(file, JSON.stringify(contents));
    const store = TokenStore.open(file);
    expect(store.list()).toHaveLength(2000);

    vi.mocked(hash).mockClear();
    expect(store.verify(plaintext, NOW).ok).toBe(true);
    expect(hash).toHaveBeenCalledTimes(1);

    vi.mocked(hash).mockClear();
    expect(store.verify(`sl_${randomBytes(32).toString('base64url')}`, NOW).ok).toBe(false);
    expect(hash).toHaveBeenCalledTimes(0);
  });
});

describe('TokenStore.revoke', () => {
  it('persists across reopening and keeps the first revocation time', () => {
    const store = TokenStore.open(file);
    const { record } = store.mint(options());
    const first = new Date(NOW + 1000).toISOString();
    expect(store.revoke(record.id, NOW + 1000)?.revokedAt).toBe(first);
    expect(store.revoke(record.id, NOW + 5000)?.revokedAt).toBe(first);
    expect(TokenStore.open(file).get(record.id)?.revokedAt).toBe(first);
  });

  it('returns undefined for an unknown id', () => {
    expect(TokenStore.open(file).revoke('tok_000000000000', NOW)).toBeUndefined();
  });
});

describe('TokenStore.touch and flush', () => {
  it('keeps lastUsedAt in memory until flushed', () => {
    const store = TokenStore.open(file);
    const { record } = store.mint(options());
    store.touch(record.id, NOW + 1000);
    expect(store.get(record.id)?.lastUsedAt).toBe(new Date(NOW + 1000).toISOString());
    expect(TokenStore.open(file).get(record.id)?.lastUsedAt).toBeUndefined();
    store.flush();
    expect(TokenStore.open(file).get(record.id)?.lastUsedAt).toBe(new Date(NOW + 1000).toISOString());
  });
});

describe('TokenStore.onRevoke', () => {
  it('tells listeners about each token revoked, once', () => {
    const store = TokenStore.open(file);
    const { record } = store.mint(options());
    const heard: string[] = [];
    store.onRevoke((revoked) => heard.push(revoked.id));
    store.revoke(record.id, NOW + 1000);
    store.revoke(record.id, NOW + 2000);
    expect(heard).toEqual([record.id]);
  });
});

describe('TokenStore.open', () => {
  it('starts empty when the file is absent', () => {
    expect(TokenStore.open(file).list()).toEqual([]);
  });

  it('throws, naming the file, when the file is corrupt', () => {
    for (const corrupt of ['', '{"version": 1, "tokens": [', '{"tokens": []}', '[]']) {
      writeFileSync(file, corrupt);
      expect(() => TokenStore.open(file)).toThrow(file);
    }
  });

  it('throws, naming the field, when a record is malformed', () => {
    const { record } = TokenStore.open(file).mint(options());
    writeFileSync(file, JSON.stringify({ version: 1, tokens: [{ ...record, level: 'root' }] }));
    expect(() => TokenStore.open(file)).toThrow('tokens[0].level');
    writeFileSync(file, JSON.stringify({ version: 1, tokens: [record, record] }));
    expect(() => TokenStore.open(file)).toThrow('unique');
  });
});
