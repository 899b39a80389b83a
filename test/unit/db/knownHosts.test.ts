import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addHostKey, checkHostKey, fingerprint, hostField } from '../../../src/db/reach/knownHosts.js';

/** An SSH wire-format public key: the type and the key bytes, each after its 32-bit length. */
function wireKey(type: string, body: Buffer): Buffer {
  const withLength = (bytes: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, bytes.length]), bytes]);
  return Buffer.concat([withLength(Buffer.from(type)), withLength(body)]);
}

const keyA = wireKey('ssh-ed25519', Buffer.alloc(32, 1));
const keyB = wireKey('ssh-ed25519', Buffer.alloc(32, 2));
/** Known-hosts files a test made, removed with their directories after it. */
const made: string[] = [];
const fresh = () => {
  const file = join(mkdtempSync(join(tmpdir(), 'sluice-known-')), 'known_hosts');
  made.push(file);
  return file;
};
afterEach(() => {
  for (const file of made.splice(0)) rmSync(dirname(file), { recursive: true, force: true });
});

describe('known_hosts', () => {
  it('names a host as OpenSSH does', () => {
    expect(hostField('db.example.com', 22)).toBe('db.example.com');
    expect(hostField('127.0.0.1', 2222)).toBe('[127.0.0.1]:2222');
  });

  it('prints the fingerprint as OpenSSH does (SHA256, unpadded base64)', () => {
    expect(fingerprint(keyA)).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });

  it('says unknown, known and changed, and replaces a changed key only when asked', () => {
    const file = fresh();
    expect(checkHostKey(file, 'db', 2222, keyA)).toEqual({ status: 'unknown' });
    addHostKey(file, 'db', 2222, keyA, false);
    expect(readFileSync(file, 'utf8')).toBe(`[db]:2222 ssh-ed25519 ${keyA.toString('base64')}\n`);
    expect(checkHostKey(file, 'db', 2222, keyA)).toEqual({ status: 'known' });
    expect(checkHostKey(file, 'db', 22, keyA)).toEqual({ status: 'unknown' });
    expect(checkHostKey(file, 'db', 2222, keyB)).toEqual({ status: 'changed', known: [fingerprint(keyA)] });
    addHostKey(file, 'db', 2222, keyB, true);
    expect(checkHostKey(file, 'db', 2222, keyA)).toEqual({ status: 'changed', known: [fingerprint(keyB)] });
  });

  it('reads hashed names, name lists and keeps comments and other hosts', () => {
    const file = fresh();
    const salt = randomBytes(20);
    const hash = createHmac('sha1', salt).update('[db]:2222').digest('base64');
    writeFileSync(
      file,
      `# mine\nother,db.example.com ssh-ed25519 ${keyB.toString('base64')}\n|1|${salt.toString('base64')}|${hash} ssh-ed25519 ${keyA.toString('base64')}\n@revoked db ssh-ed25519 ${keyA.toString('base64')}\n`,
    );
    expect(checkHostKey(file, 'db', 2222, keyA)).toEqual({ status: 'known' });
    expect(checkHostKey(file, 'db.example.com', 22, keyB)).toEqual({ status: 'known' });
    expect(checkHostKey(file, 'db', 22, keyA)).toEqual({ status: 'unknown' });
    addHostKey(file, 'db', 2222, keyB, true);
    expect(readFileSync(file, 'utf8').split('\n')[0]).toBe('# mine');
    expect(checkHostKey(file, 'db.example.com', 22, keyB)).toEqual({ status: 'known' });
  });
});
