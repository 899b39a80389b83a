import { createHash, createHmac } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../../core/atomicFile.js';

/** The SSH host keys Sluice accepted, in the support directory, in OpenSSH's `known_hosts` format. */
export const KNOWN_HOSTS_FILE = 'known_hosts';

/** A public key's fingerprint as OpenSSH shows it: `SHA256:` and unpadded base64. */
export const fingerprint = (key: Buffer) => `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;

/** The key's type (`ssh-ed25519`, …), the first string of its wire form. */
export const keyType = (key: Buffer) => key.subarray(4, 4 + key.readUInt32BE(0)).toString('latin1');

/** How `known_hosts` names a host: bare on port 22, else `[host]:port`. */
export const hostField = (host: string, port: number) => (port === 22 ? host : `[${host}]:${port}`);

export type HostKeyCheck = { status: 'known' } | { status: 'unknown' } | { status: 'changed'; known: string[] };

/** One of a line's comma-separated names: plain, or hashed (`|1|salt|hash`, HMAC-SHA1 of the name). */
function nameMatches(name: string, field: string): boolean {
  const hashed = /^\|1\|([^|]+)\|([^|]+)$/.exec(name);
  if (!hashed) return name.toLowerCase() === field.toLowerCase();
  return createHmac('sha1', Buffer.from(hashed[1]!, 'base64')).update(field).digest('base64') === hashed[2];
}

type Entry = { line: string; forHost: boolean; key?: Buffer };

function entries(file: string, host: string, port: number): Entry[] {
  if (!existsSync(file)) return [];
  const field = hostField(host, port);
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [names = '', , key] = line.trim().split(/\s+/);
      // Comments and marked lines (@cert-authority, @revoked) are kept but never vouch for a key.
      if (line.trim().startsWith('#') || names.startsWith('@') || key === undefined) return { line, forHost: false };
      return { line, forHost: names.split(',').some((name) => nameMatches(name, field)), key: Buffer.from(key, 'base64') };
    });
}

/** Whether `file` knows `key` for `host`:`port`, does not know the host, or knows it with other keys. */
export function checkHostKey(file: string, host: string, port: number, key: Buffer): HostKeyCheck {
  const known = entries(file, host, port).filter((e) => e.forHost && e.key);
  if (known.length === 0) return { status: 'unknown' };
  if (known.some((e) => e.key!.equals(key))) return { status: 'known' };
  return { status: 'changed', known: known.map((e) => fingerprint(e.key!)) };
}

/** Records `key` for `host`:`port`; `replace` first removes the keys known for it. */
export function addHostKey(file: string, host: string, port: number, key: Buffer, replace: boolean): void {
  const kept = entries(file, host, port).filter((e) => !(replace && e.forHost));
  const line = `${hostField(host, port)} ${keyType(key)} ${key.toString('base64')}`;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomic(file, `${[...kept.map((e) => e.line), line].join('\n')}\n`);
}
