import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import type { Handshake } from '../../src/core/handshake.js';

/** The built command (`npm test` builds first), run exactly as a user runs it. */
/** The CLI under test: this checkout's build, or an installed package's (scripts/packageCheck.mjs). */
export const SLUICE_BIN = process.env.SLUICE_CLI_UNDER_TEST ?? fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

export function runSluice(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [SLUICE_BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 20_000,
  });
}

export type ServeProcess = {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
};

/** `sluice serve` with `args`; desktop notifications off, so that no test shows one on the desktop. */
export function spawnServe(args: string[], env: NodeJS.ProcessEnv = {}): ServeProcess {
  const child = spawn(process.execPath, [SLUICE_BIN, 'serve', '--no-notify', ...args], { env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr.on('data', (chunk) => {
    err += chunk;
  });
  return { child, stdout: () => out, stderr: () => err };
}

/** Resolves with the handshake once the file exists (the server writes it after binding). */
export async function waitForHandshake(
  dataDir: string,
  timeoutMs = 15_000,
): Promise<Handshake> {
  const file = join(dataDir, 'mcp-handshake.json');
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`no handshake file in ${dataDir}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return JSON.parse(readFileSync(file, 'utf8'));
}

export function exited(
  child: ChildProcessWithoutNullStreams,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null) return Promise.resolve({ code: child.exitCode, signal: null });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** What `command`, one of the command line's own functions run in the test process, writes on stdout. */
export async function printed(command: () => Promise<void>): Promise<string> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    written.push(String(chunk));
    return true;
  });
  try {
    await command();
  } finally {
    spy.mockRestore();
  }
  return written.join('');
}
