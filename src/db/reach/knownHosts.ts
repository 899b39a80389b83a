import { createHash, createHmac } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ServerHostKeyAlgorithm } from 'ssh2';
import { writeFileAtomic } from '../../core/atomicFile.js';
import { matchesPatternList } from './hostPatterns.js';

/** The SSH host keys Sluice accepted, in the support directory, in OpenSSH's `known_hosts` format. */
export const KNOWN_HOSTS_FILE = 'known_hosts';

/** A public key's fingerprint as OpenSSH shows it: `SHA256:` and unpadded base64. */
export const fingerprint = (key: Buffer) => `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;

/** The key's type (`ssh-ed25519`, …), the first string of its wire form. */
export const keyType = (key: Buffer) => key.subarray(4, 4 + key.readUInt32BE(0)).toString('latin1');

/** How `known_hosts` names a host: bare on port 22, else `[host]:port`. */
export const hostField = (host: string, port: number) => (port === 22 ? host : `[${host}]:${port}`);

/** A key a known-hosts file holds for a host, where it is, and whether the line revokes it (`@revoked`). */
export type KnownKey = { key: Buffer; revoked: boolean; file: string; line: number };

export type HostKeyCheck =
  | { status: 'known' }
  | { status: 'unknown' }
  | { status: 'changed'; known: KnownKey[] }
  | { status: 'revoked'; by: KnownKey };

/** One line of a known-hosts file: its names, marker and key, none of them for a comment or a line OpenSSH would not read. */
type Line = { text: string; names?: string; marker?: string; key?: Buffer };

export function parseLine(text: string): Line {
  const fields = text.trim().split(/\s+/);
  const marker = fields[0]?.startsWith('@') ? fields.shift() : undefined;
  const [names, type, base64] = fields;
  if (!names || names.startsWith('#') || !type || !base64) return { text };
  const key = Buffer.from(base64, 'base64');
  // A key whose wire form does not start with the type the line gives is not a key OpenSSH reads.
  if (key.length < 4 || key.readUInt32BE(0) > key.length - 4 || keyType(key) !== type) return { text };
  return { text, names, ...(marker ? { marker } : {}), key };
}

/** A line's names: one hashed name (`|1|salt|hash`, HMAC-SHA1 of the name), or a pattern list with `*`, `?` and `!`. */
export function namesMatch(names: string, field: string): boolean {
  if (!names.startsWith('|')) return matchesPatternList(names.split(','), field);
  const hashed = /^\|1\|([^|]+)\|([^|]+)$/.exec(names);
  return hashed !== null && createHmac('sha1', Buffer.from(hashed[1]!, 'base64')).update(field).digest('base64') === hashed[2];
}

/** The name OpenSSH looks a host up by: lower case, `[host]:port` off port 22. */
export const lookupName = (host: string, port: number) => hostField(host.toLowerCase(), port);

/** A file's lines as `knownKeys` numbers them: empty lines are not counted. */
const linesOf = (file: string) => readFileSync(file, 'utf8').split('\n').filter((text) => text !== '').map(parseLine);

/**
 * `key` against the keys known for its host, as OpenSSH judges it: revoked when a `@revoked` line holds
 * it, known when any other line does, changed when other keys are known, else unknown.
 */
export function checkHostKey(known: KnownKey[], key: Buffer): HostKeyCheck {
  const revoked = known.find((entry) => entry.revoked && entry.key.equals(key));
  if (revoked) return { status: 'revoked', by: revoked };
  const trusted = known.filter((entry) => !entry.revoked);
  if (trusted.length === 0) return { status: 'unknown' };
  if (trusted.some((entry) => entry.key.equals(key))) return { status: 'known' };
  return { status: 'changed', known: trusted };
}

/** The host key algorithms (as ssh2 names them) that present a key of each type, in ssh2's order of preference. */
const ALGORITHMS: Record<string, ServerHostKeyAlgorithm[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};

/**
 * The host key algorithms to ask the server for first: those of the keys known for it, as OpenSSH
 * does, so that a server with several keys presents one that is known rather than one that only looks new.
 */
export function preferredAlgorithms(known: KnownKey[]): ServerHostKeyAlgorithm[] {
  const types = new Set(known.filter((entry) => !entry.revoked).map((entry) => keyType(entry.key)));
  return Object.entries(ALGORITHMS).flatMap(([type, algorithms]) => (types.has(type) ? algorithms : []));
}

/** Records `key` for `host`:`port` in Sluice's own `file`; `replace` first removes the keys known for it there. */
export function addHostKey(file: string, host: string, port: number, key: Buffer, replace: boolean): void {
  const name = lookupName(host, port);
  const lines = existsSync(file) ? linesOf(file) : [];
  const kept = lines.filter(({ names, marker, key: known }) => !(replace && known && names && marker === undefined && namesMatch(names, name)));
  const line = `${hostField(host, port)} ${keyType(key)} ${key.toString('base64')}`;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomic(file, `${[...kept.map((other) => other.text), line].join('\n')}\n`);
}
