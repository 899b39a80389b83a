import { chmodSync, lstatSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../core/atomicFile.js';

/** Unix socket paths are limited to about 104 bytes. */
const MAX_SOCKET_PATH = 100;
/** Where the socket's path is written when it cannot live in the support directory. */
const SOCKET_PATH_FILE = 'control-socket.path';

/**
 * Where the command line finds the running application: `control.sock` in the support directory, a
 * named pipe on Windows, or — when the support directory's path is too long for a socket — the path
 * the application wrote in `control-socket.path` there. Undefined when there is none to find.
 */
export function controlSocketPath(dataDir: string, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform === 'win32') return windowsPipe(dataDir);
  const inDir = join(dataDir, 'control.sock');
  if (inDir.length <= MAX_SOCKET_PATH) return inDir;
  try {
    return privateSocket(readFileSync(join(dataDir, SOCKET_PATH_FILE), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Where a starting application listens. A support directory too deep for a socket gets a new private
 * directory (mode 0700, a random name under `$XDG_RUNTIME_DIR` or the temp folder), its socket's path
 * written into the support directory: no other user can guess the name, take it first or listen in
 * its place. The previous one, if any, is removed.
 */
export function newControlSocketPath(dataDir: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') return windowsPipe(dataDir);
  const inDir = join(dataDir, 'control.sock');
  if (inDir.length <= MAX_SOCKET_PATH) return inDir;
  removeControlSocketDir(dataDir);
  const base = env.XDG_RUNTIME_DIR && join(env.XDG_RUNTIME_DIR, 'sluice-XXXXXX/control.sock').length <= MAX_SOCKET_PATH ? env.XDG_RUNTIME_DIR : tmpdir();
  const path = join(mkdtempSync(join(base, 'sluice-')), 'control.sock');
  writeFileAtomic(join(dataDir, SOCKET_PATH_FILE), path);
  return path;
}

/** Before listening: a socket file left behind by a crash is removed (a named pipe leaves none). */
export function clearStaleSocket(path: string, platform: NodeJS.Platform = process.platform): void {
  if (platform !== 'win32') rmSync(path, { force: true });
}

/** Once listening: only the user may open the socket (a named pipe has no file mode to set). */
export function restrictSocket(path: string, platform: NodeJS.Platform = process.platform): void {
  if (platform !== 'win32') chmodSync(path, 0o600);
}

/** On closing: the socket file and the private directory it may live in (a named pipe goes by itself). */
export function removeControlSocket(dataDir: string, path: string, platform: NodeJS.Platform = process.platform): void {
  if (platform === 'win32') return;
  rmSync(path, { force: true });
  removeControlSocketDir(dataDir);
}

/** Removes the private directory `newControlSocketPath` made, and its record. */
export function removeControlSocketDir(dataDir: string): void {
  const recorded = controlSocketPath(dataDir, 'linux');
  if (recorded && recorded !== join(dataDir, 'control.sock')) rmSync(dirname(recorded), { recursive: true, force: true });
  rmSync(join(dataDir, SOCKET_PATH_FILE), { force: true });
}

/** A recorded path, trusted only inside a directory that is ours and closed to everyone else. */
function privateSocket(path: string): string | undefined {
  const dir = lstatSync(dirname(path));
  const ours = process.getuid === undefined || dir.uid === process.getuid();
  return dir.isDirectory() && ours && (dir.mode & 0o077) === 0 ? path : undefined;
}

function windowsPipe(dataDir: string): string {
  return `\\\\.\\pipe\\sluice-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}`;
}

export type ControlRequest = { id: number; method: string; params: Record<string, unknown> };
export type ControlResponse = { id: number; result?: unknown; error?: string };
