import { createHmac, randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SSH } from '../../../src/core/contract.js';
import { addHostKey, checkHostKey, fingerprint, hostField, keyType, preferredAlgorithms } from '../../../src/db/reach/knownHosts.js';
import { knownKeys } from '../../../src/db/reach/knownKeys.js';
import { worstLoopDelay } from '../../helpers/loopDelay.js';

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
const check = async (file: string, host: string, port: number, key: Buffer) => checkHostKey(await knownKeys([file], host, port), key);

describe('known_hosts', () => {
  it('names a host as OpenSSH does', () => {
    expect(hostField('db.example.com', 22)).toBe('db.example.com');
    expect(hostField('127.0.0.1', 2222)).toBe('[127.0.0.1]:2222');
  });

  it('prints the fingerprint as OpenSSH does (SHA256, unpadded base64)', () => {
    expect(fingerprint(keyA)).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });

  it('says unknown, known and changed, and replaces a changed key only when asked', async () => {
    const file = fresh();
    expect(await check(file, 'db', 2222, keyA)).toEqual({ status: 'unknown' });
    addHostKey(file, 'db', 2222, keyA, false);
    expect(readFileSync(file, 'utf8')).toBe(`[db]:2222 ssh-ed25519 ${keyA.toString('base64')}\n`);
    expect(await check(file, 'db', 2222, keyA)).toEqual({ status: 'known' });
    expect(await check(file, 'db', 22, keyA)).toEqual({ status: 'unknown' });
    expect(await check(file, 'db', 2222, keyB)).toEqual({ status: 'changed', known: [{ key: keyA, revoked: false, file, line: 1 }] });
    addHostKey(file, 'db', 2222, keyB, true);
    expect(await check(file, 'db', 2222, keyA)).toEqual({ status: 'changed', known: [{ key: keyB, revoked: false, file, line: 1 }] });
  });

  it('reads hashed names, plain and hashed, with and without a port, in any case', async () => {
    const file = fileWith(line(hashed('[db.example.com]:2222'), keyA), line(hashed('bastion'), keyB));
    expect(await check(file, 'db.example.com', 2222, keyA)).toEqual({ status: 'known' });
    expect(await check(file, 'DB.Example.COM', 2222, keyA)).toEqual({ status: 'known' });
    expect(await check(file, 'db.example.com', 22, keyA)).toEqual({ status: 'unknown' });
    expect(await check(file, 'bastion', 22, keyB)).toEqual({ status: 'known' });
    expect(await check(file, 'bastion', 2222, keyB)).toEqual({ status: 'unknown' });
    expect(await check(fileWith(line('|1|bm90LWEtaGFzaA==|broken', keyA)), 'db', 22, keyA)).toEqual({ status: 'unknown' });
  });

  it('reads name lists, [host]:port forms, wildcards and negations', async () => {
    const file = fileWith(
      '# mine',
      line('other,db.example.com,10.0.0.5', keyA),
      line('[gw.example.com]:2200', keyB),
      line('*.internal,!secret.internal', keyA),
      line('[web?.example.com]:*', keyB),
    );
    expect(await check(file, 'db.example.com', 22, keyA)).toEqual({ status: 'known' });
    expect(await check(file, '10.0.0.5', 22, keyA)).toEqual({ status: 'known' });
    expect(await check(file, 'gw.example.com', 2200, keyB)).toEqual({ status: 'known' });
    expect(await check(file, 'gw.example.com', 22, keyB)).toEqual({ status: 'unknown' });
    expect(await check(file, 'app.internal', 22, keyA)).toEqual({ status: 'known' });
    // A negated name takes the whole line away from the host, as in OpenSSH.
    expect(await check(file, 'secret.internal', 22, keyA)).toEqual({ status: 'unknown' });
    expect(await check(file, 'web1.example.com', 8022, keyB)).toEqual({ status: 'known' });
    expect(await check(file, 'web12.example.com', 8022, keyB)).toEqual({ status: 'unknown' });
  });

  it('refuses a key a @revoked line for the host holds, whatever other lines say; a revocation for another host does not apply', async () => {
    const file = fileWith(line('db', keyA), line('@revoked db', keyA), line('@revoked other', keyB), line('db', keyB));
    expect(await check(file, 'db', 22, keyA)).toEqual({ status: 'revoked', by: { key: keyA, revoked: true, file, line: 2 } });
    expect(await check(file, 'db', 22, keyB)).toEqual({ status: 'known' });
  });

  it('reads no @cert-authority line, no unknown marker and no line whose key is not of its type', async () => {
    const file = fileWith(line('@cert-authority db', keyA), line('@other db', keyA), `db ssh-rsa ${keyA.toString('base64')}`, 'db ssh-ed25519 !!!');
    expect(await knownKeys([file], 'db', 22)).toEqual([]);
    expect(await check(file, 'db', 22, keyA)).toEqual({ status: 'unknown' });
  });

  it('reads several files in order; a key any of them holds is known, a missing or unreadable file holds none', async () => {
    const sluice = fileWith(line('db', keyA));
    const users = fileWith(line('db', keyB));
    const unreadable = fileWith(line('db', rsaKey));
    chmodSync(unreadable, 0);
    const files = [sluice, join(dirOf(), 'absent'), users, ...(process.getuid?.() === 0 ? [] : [unreadable])];
    expect((await knownKeys(files, 'db', 22)).map((known) => known.file)).toEqual([sluice, users]);
    expect(checkHostKey(await knownKeys(files, 'db', 22), keyB)).toEqual({ status: 'known' });
    expect(checkHostKey(await knownKeys(files, 'db', 22), rsaKey)).toEqual({
      status: 'changed',
      known: [
        { key: keyA, revoked: false, file: sluice, line: 1 },
        { key: keyB, revoked: false, file: users, line: 1 },
      ],
    });
  });

  it('asks the server first for the algorithms of the key types known for it, never for a revoked one', async () => {
    expect(preferredAlgorithms(await knownKeys([fileWith(line('db', rsaKey), line('db', keyA))], 'db', 22))).toEqual([
      'ssh-ed25519',
      'rsa-sha2-512',
      'rsa-sha2-256',
      'ssh-rsa',
    ]);
    expect(preferredAlgorithms(await knownKeys([fileWith(line('@revoked db', keyA))], 'db', 22))).toEqual([]);
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

  it('looks a host up in 20,000 hashed lines without holding the event loop for 50 ms', async () => {
    const others = Array.from({ length: 19_999 }, (_, i) => line(hashed(`host${i}.example.com`), keyB));
    const file = fileWith(...others, line(hashed('[db.example.com]:2222'), keyA));
    let found: unknown;
    const delayMs = await worstLoopDelay(async () => {
      found = await knownKeys([file], 'db.example.com', 2222);
    });
    expect(found).toEqual([{ key: keyA, revoked: false, file, line: 20_000 }]);
    expect(delayMs).toBeLessThan(50);
  });

  it('reads a file again once it changed, even edited in place', async () => {
    const file = fileWith(line('other', keyB));
    expect(await check(file, 'db', 22, keyA)).toEqual({ status: 'unknown' });
    appendFileSync(file, `${line('@revoked db', keyA)}\n`);
    expect(await check(file, 'db', 22, keyA)).toEqual({ status: 'revoked', by: { key: keyA, revoked: true, file, line: 2 } });
  });

  it(`reads a file of ${SSH.maxKnownHostsBytes} bytes, and refuses one a byte larger rather than read it in part`, async () => {
    const last = `${line('db', keyA)}\n`;
    /** Comment lines of 1,000 bytes (the first shorter) that fill `bytes`. */
    const padding = (bytes: number) => {
      const lines = Math.ceil(bytes / 1_000);
      return `${'#'.repeat(bytes - (lines - 1) * 1_000 - 1)}\n${`${'#'.repeat(999)}\n`.repeat(lines - 1)}`;
    };
    const file = fresh();
    writeFileSync(file, padding(SSH.maxKnownHostsBytes - last.length) + last);
    expect(readFileSync(file).length).toBe(SSH.maxKnownHostsBytes);
    expect(await check(file, 'db', 22, keyA)).toEqual({ status: 'known' });
    writeFileSync(file, padding(SSH.maxKnownHostsBytes + 1 - last.length) + last);
    await expect(knownKeys([file], 'db', 22)).rejects.toMatchObject({
      kind: 'not_connected',
      message:
        `the known-hosts file ${file} is larger than the 16 MiB Sluice reads of one; refusing to connect rather than read it in part ` +
        '(remove the hosts it no longer needs with ssh-keygen -R, or name a smaller file)',
    });
  });
});
