import { type FileHandle, open } from 'node:fs/promises';
import { SSH } from '../../core/contract.js';
import { nextTurn } from '../../core/nextTurn.js';
import { DriverFailure } from '../driverFailure.js';
import { type KnownKey, lookupName, namesMatch, parseLine } from './knownHosts.js';

/**
 * Lines parsed, or matched against a host, between two turns of the event loop. A hashed name costs an
 * HMAC-SHA1 (about 11 µs here), so a slice takes a few milliseconds and a 20,000-line file never holds
 * the loop for long.
 */
const LINES_PER_TURN = 500;
const MIB = 1_048_576;

/** A line of a file that names hosts for a plain or revoked key, numbered as `knownKeys` reports it. */
type Entry = { names: string; revoked: boolean; key: Buffer; line: number };

/** A file as last read: which version of it (inode, size, modification time), its entries, and the keys found per host name. */
type ReadFile = { version: string; entries: Promise<Entry[]>; found: Map<string, Promise<KnownKey[]>> };

/**
 * Files read, by path: a file is read and parsed once per version, and each host name looked up once in
 * it. Which files there are is the person's choice (saved connections, `~/.ssh/config`), not a client's.
 */
const readFiles = new Map<string, ReadFile>();

/**
 * The keys `files` hold for `host`:`port`, file by file, line by line. A file that is missing or cannot
 * be read holds none; `@cert-authority` lines are not read (Sluice checks plain host keys only). A file
 * over `SSH.maxKnownHostsBytes` is refused with a DriverFailure, not read in part.
 */
export async function knownKeys(files: string[], host: string, port: number): Promise<KnownKey[]> {
  const name = lookupName(host, port);
  const found: KnownKey[] = [];
  for (const file of files) {
    const read = await readFile(file);
    if (!read) continue;
    let keys = read.found.get(name);
    if (!keys) {
      keys = keysFor(file, read.entries, name);
      read.found.set(name, keys);
    }
    found.push(...(await keys));
  }
  return found;
}

/** The file's current version, read again only when it changed; undefined when it is missing or cannot be read. */
async function readFile(file: string): Promise<ReadFile | undefined> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const stats = await handle.stat().catch(() => undefined);
    if (!stats) return undefined;
    const version = `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
    const known = readFiles.get(file);
    if (known?.version === version) return known;
    const text = await readBounded(handle, file);
    if (text === undefined) return undefined;
    const read: ReadFile = { version, entries: entriesOf(text), found: new Map() };
    readFiles.set(file, read);
    return read;
  } finally {
    await handle.close();
  }
}

/** Bytes asked of the file per read. */
const READ_BYTES = 256 * 1024;

/**
 * The file's text, read until its end whatever size it claims (a device claims none), but never more
 * than `SSH.maxKnownHostsBytes`: past it the connection is refused. Undefined when it cannot be read.
 */
async function readBounded(handle: FileHandle, file: string): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(READ_BYTES);
    let bytesRead: number;
    try {
      ({ bytesRead } = await handle.read(chunk, 0, READ_BYTES, null));
    } catch {
      return undefined;
    }
    if (bytesRead === 0) return Buffer.concat(chunks, total).toString('utf8');
    total += bytesRead;
    if (total > SSH.maxKnownHostsBytes) {
      throw new DriverFailure(
        'not_connected',
        `the known-hosts file ${file} is larger than the ${SSH.maxKnownHostsBytes / MIB} MiB Sluice reads of one; refusing to connect ` +
          'rather than read it in part (remove the hosts it no longer needs with ssh-keygen -R, or name a smaller file)',
      );
    }
    chunks.push(chunk.subarray(0, bytesRead));
  }
}

/** The lines of `text` that hold a plain or revoked key, parsed a slice at a time; empty lines are not counted. */
async function entriesOf(text: string): Promise<Entry[]> {
  const entries: Entry[] = [];
  let line = 0;
  for (let at = 0; at < text.length; ) {
    const newline = text.indexOf('\n', at);
    const end = newline < 0 ? text.length : newline;
    const lineText = text.slice(at, end);
    at = end + 1;
    if (lineText === '') continue;
    line += 1;
    if (line % LINES_PER_TURN === 0) await nextTurn();
    const { names, marker, key } = parseLine(lineText);
    if (key && names && (marker === undefined || marker === '@revoked')) entries.push({ names, revoked: marker === '@revoked', key, line });
  }
  return entries;
}

/** The entries whose names match `name`, an HMAC per hashed name, a slice at a time. */
async function keysFor(file: string, entries: Promise<Entry[]>, name: string): Promise<KnownKey[]> {
  const all = await entries;
  const found: KnownKey[] = [];
  for (let from = 0; from < all.length; from += LINES_PER_TURN) {
    if (from > 0) await nextTurn();
    for (const { names, revoked, key, line } of all.slice(from, from + LINES_PER_TURN)) {
      if (namesMatch(names, name)) found.push({ key, revoked, file, line });
    }
  }
  return found;
}
