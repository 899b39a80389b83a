import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addHostKey, checkHostKey, fingerprint, hostField, keyType, knownKeys, preferredAlgorithms } from '../../../src/db/reach/knownHosts.js';

/** An SSH wire-format public key: the type and the key bytes, each after its 32-bit length. */
function wireKey(type: string, body: Buffer): Buffer {
  const withLength = (bytes: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, bytes.length]), bytes]);
  return Buffer.concat([withLength(Buffer.from(type)), withLength(body)]);
}

const keyA = wireKey('ssh-ed25519', Buffer.alloc(32, 1));
const keyB = wireKey('ssh-ed25519', Buffer.alloc(32, 2));
const rsaKey = wireKey('ssh-rsa', Buffer.alloc(64, 3));
/** A known-hosts line: its names (after a marker, if any) and the key. */
const line = (names: string, key: Buffer) => `${names} ${keyType(key)} ${key.toString('base64')}`;
/** `|1|salt|hash` for `name`, as `ssh-keygen -H` writes it. */
const hashed = (name: string) => {
  const salt = randomBytes(20);
  return `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
};

/** Directories a test made, removed after it. */
const made: string[] = [];
const dirOf = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-known-'));
  made.push(dir);
  return dir;
};
const fresh = () => join(dirOf(), 'known_hosts');
/** A known-hosts file holding `lines`. */
const fileWith = (...lines: string[]) => {
  const file = fresh();
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
};
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** What one file says of `key` for `host`:`port`. */
const check = (file: string, host: string, port: number, key: Buffer) => checkHostKey(knownKeys([file], host, port), key);

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
    expect(check(file, 'db', 2222, keyA)).toEqual({ status: 'unknown' });
    addHostKey(file, 'db', 2222, keyA, false);
    expect(readFileSync(file, 'utf8')).toBe(`[db]:2222 ssh-ed25519 ${keyA.toString('base64')}\n`);
    expect(check(file, 'db', 2222, keyA)).toEqual({ status: 'known' });
    expect(check(file, 'db', 22, keyA)).toEqual({ status: 'unknown' });
    expect(check(file, 'db', 2222, keyB)).toEqual({ status: 'changed', known: [{ key: keyA, revoked: false, file, line: 1 }] });
    addHostKey(file, 'db', 2222, keyB, true);
    expect(check(file, 'db', 2222, keyA)).toEqual({ status: 'changed', known: [{ key: keyB, revoked: false, file, line: 1 }] });
  });

  it('reads hashed names, plain and hashed, with and without a port, in any case', () => {
    const file = fileWith(line(hashed('[db.example.com]:2222'), keyA), line(hashed('bastion'), keyB));
    expect(check(file, 'db.example.com', 2222, keyA)).toEqual({ status: 'known' });
    expect(check(file, 'DB.Example.COM', 2222, keyA)).toEqual({ status: 'known' });
    expect(check(file, 'db.example.com', 22, keyA)).toEqual({ status: 'unknown' });
    expect(check(file, 'bastion', 22, keyB)).toEqual({ status: 'known' });
    expect(check(file, 'bastion', 2222, keyB)).toEqual({ status: 'unknown' });
    expect(check(fileWith(line('|1|bm90LWEtaGFzaA==|broken', keyA)), 'db', 22, keyA)).toEqual({ status: 'unknown' });
  });

  it('reads name lists, [host]:port forms, wildcards and negations', () => {
    const file = fileWith(
      '# mine',
      line('other,db.example.com,10.0.0.5', keyA),
      line('[gw.example.com]:2200', keyB),
      line('*.internal,!secret.internal', keyA),
      line('[web?.example.com]:*', keyB),
    );
    expect(check(file, 'db.example.com', 22, keyA)).toEqual({ status: 'known' });
    expect(check(file, '10.0.0.5', 22, keyA)).toEqual({ status: 'known' });
    expect(check(file, 'gw.example.com', 2200, keyB)).toEqual({ status: 'known' });
    expect(check(file, 'gw.example.com', 22, keyB)).toEqual({ status: 'unknown' });
    expect(check(file, 'app.internal', 22, keyA)).toEqual({ status: 'known' });
    // A negated name takes the whole line away from the host, as in OpenSSH.
    expect(check(file, 'secret.internal', 22, keyA)).toEqual({ status: 'unknown' });
    expect(check(file, 'web1.example.com', 8022, keyB)).toEqual({ status: 'known' });
    expect(check(file, 'web12.example.com', 8022, keyB)).toEqual({ status: 'unknown' });
  });

  it('refuses a key a @revoked line for the host holds, whatever other lines say; a revocation for another host does not apply', () => {
    const file = fileWith(line('db', keyA), line('@revoked db', keyA), line('@revoked other', keyB), line('db', keyB));
    expect(check(file, 'db', 22, keyA)).toEqual({ status: 'revoked', by: { key: keyA, revoked: true, file, line: 2 } });
    expect(check(file, 'db', 22, keyB)).toEqual({ status: 'known' });
  });

  it('reads no @cert-authority line, no unknown marker and no line whose key is not of its type', () => {
    const file = fileWith(line('@cert-authority db', keyA), line('@other db', keyA), `db ssh-rsa ${keyA.toString('base64')}`, 'db ssh-ed25519 !!!');
    expect(knownKeys([file], 'db', 22)).toEqual([]);
    expect(check(file, 'db', 22, keyA)).toEqual({ status: 'unknown' });
  });

  it('reads several files in order; a key any of them holds is known, a missing or unreadable file holds none', () => {
    const sluice = fileWith(line('db', keyA));
    const users = fileWith(line('db', keyB));
    const unreadable = fileWith(line('db', rsaKey));
    chmodSync(unreadable, 0);
    const files = [sluice, join(dirOf(), 'absent'), users, ...(process.getuid?.() === 0 ? [] : [unreadable])];
    expect(knownKeys(files, 'db', 22).map((known) => known.file)).toEqual([sluice, users]);
    expect(checkHostKey(knownKeys(files, 'db', 22), keyB)).toEqual({ status: 'known' });
    expect(checkHostKey(knownKeys(files, 'db', 22), rsaKey)).toEqual({
      status: 'changed',
      known: [
        { key: keyA, revoked: false, file: sluice, line: 1 },
        { key: keyB, revoked: false, file: users, line: 1 },
      ],
    });
  });

  it('asks the server first for the algorithms of the key types known for it, never for a revoked one', () => {
    expect(preferredAlgorithms(knownKeys([fileWith(line('db', rsaKey), line('db', keyA))], 'db', 22))).toEqual([
      'ssh-ed25519',
      'rsa-sha2-512',
      'rsa-sha2-256',
      'ssh-rsa',
    ]);
    expect(preferredAlgorithms(knownKeys([fileWith(line('@revoked db', keyA))], 'db', 22))).toEqual([]);
  });

  it('keeps comments, other hosts and marked lines when it replaces a key', () => {
    const file = fileWith('# mine', line('other,db.example.com', keyB), line(hashed('[db]:2222'), keyA), line('@revoked [db]:2222', rsaKey));
    addHostKey(file, 'db', 2222, keyB, true);
    expect(readFileSync(file, 'utf8').split('\n')).toEqual([
      '# mine',
      line('other,db.example.com', keyB),
      line('@revoked [db]:2222', rsaKey),
      `[db]:2222 ssh-ed25519 ${keyB.toString('base64')}`,
      '',
    ]);
  });
});
