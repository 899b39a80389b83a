import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Unix socket paths are limited to about 104 bytes; a longer support directory uses the temp folder. */
const MAX_SOCKET_PATH = 100;

/**
 * Where the running application listens for the command line: `control.sock` in the support directory
 * (mode 0600), or a named pipe on Windows. Only the user who runs Sluice can connect.
 */
export function controlSocketPath(dataDir: string, platform: NodeJS.Platform = process.platform): string {
  const digest = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
  if (platform === 'win32') return `\\\\.\\pipe\\sluice-${digest}`;
  const inDir = join(dataDir, 'control.sock');
  return inDir.length <= MAX_SOCKET_PATH ? inDir : join(tmpdir(), `sluice-${digest}.sock`);
}

export type ControlRequest = { id: number; method: string; params: Record<string, unknown> };
export type ControlResponse = { id: number; result?: unknown; error?: string };
