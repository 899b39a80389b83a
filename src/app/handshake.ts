import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomicFile.js';

export const HANDSHAKE_FILE = 'mcp-handshake.json';

export type Handshake = { port: number; pid: number; version: string };

export const handshakePath = (dataDir: string) => join(dataDir, HANDSHAKE_FILE);

/** Written once the port is bound (atomically, mode 0600), so a reader never sees a port not yet served. */
export function writeHandshake(dataDir: string, handshake: Handshake): void {
  writeFileAtomic(handshakePath(dataDir), `${JSON.stringify(handshake)}\n`);
}

export function readHandshake(dataDir: string): Handshake | undefined {
  try {
    return JSON.parse(readFileSync(handshakePath(dataDir), 'utf8')) as Handshake;
  } catch {
    return undefined;
  }
}

export function removeHandshake(dataDir: string): void {
  rmSync(handshakePath(dataDir), { force: true });
}
