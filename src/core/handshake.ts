import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomicFile.js';

export const HANDSHAKE_FILE = 'mcp-handshake.json';

export type Handshake = {
  port: number;
  pid: number;
  version: string;
  /** Authenticates `sluice bridge`; rotated at every start. */
  bridgeToken: string;
  /** Where the console listens, unless the application runs without one. */
  consolePort?: number;
};

export const handshakePath = (dataDir: string) => join(dataDir, HANDSHAKE_FILE);

/** Written once the port is bound (atomically, mode 0600), so a reader never sees a port not yet served. */
export function writeHandshake(dataDir: string, handshake: Handshake): void {
  writeFileAtomic(handshakePath(dataDir), `${JSON.stringify(handshake)}\n`);
}

/** The handshake of the running application; undefined when there is none or it is not one. */
export function readHandshake(dataDir: string): Handshake | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(handshakePath(dataDir), 'utf8'));
  } catch {
    return undefined;
  }
  const { port, pid, version, bridgeToken } = (parsed ?? {}) as Partial<Handshake>;
  const valid =
    Number.isInteger(port) && Number.isInteger(pid) && typeof version === 'string' && typeof bridgeToken === 'string';
  return valid ? (parsed as Handshake) : undefined;
}

export function removeHandshake(dataDir: string): void {
  rmSync(handshakePath(dataDir), { force: true });
}
