import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { SERVE_LOG } from '../platform/supportDir.js';
import { isRunning } from './controlClient.js';
import { sluiceProgram } from './sluiceProgram.js';

/** How long a started server may take to answer on its control socket (the first start seeds the demo database). */
export const SERVER_START_MS = 30_000;
/** After the child exits (another start may have won the race), how long its rival may still take. */
const AFTER_EXIT_MS = 5_000;
const POLL_MS = 100;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts `sluice serve --data-dir DIR` detached from this process (it outlives it), stderr appended to
 * SERVE_LOG (`sluice.log`; its stdout, with the console's one-time link, is dropped), and resolves once an application answers on the support directory's control socket.
 */
export async function startServer(dataDir: string): Promise<void> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const logPath = join(dataDir, SERVE_LOG);
  const log = openSync(logPath, 'a', 0o600);
  const [node, ...script] = sluiceProgram() as [string, ...string[]];
  let exited: number | null | undefined;
  try {
    const child = spawn(node, [...script, 'serve', '--data-dir', dataDir], {
      detached: true,
      stdio: ['ignore', 'ignore', log],
      shell: false,
      windowsHide: true,
    });
    child.once('exit', (code) => (exited = code));
    child.once('error', () => (exited = null));
    child.unref();
  } finally {
    closeSync(log);
  }
  let deadline = Date.now() + SERVER_START_MS;
  while (Date.now() < deadline) {
    if (await isRunning(dataDir)) return;
    if (exited !== undefined) deadline = Math.min(deadline, Date.now() + AFTER_EXIT_MS);
    await pause(POLL_MS);
  }
  const why = exited === undefined ? `did not answer within ${SERVER_START_MS / 1000} s` : `exited (${exited ?? 'not started'})`;
  throw new Error(`sluice serve ${why}; its log is ${logPath}`);
}
