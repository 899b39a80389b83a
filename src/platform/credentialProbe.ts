import { spawnSync } from 'node:child_process';
import { APPLICATION } from '../core/contract.js';
import { bindingPath, CREDENTIAL_SERVICE, ENTRY_OPTIONS, osStoreName } from './credentialStore.js';

export type ProbeResult = { ok: true } | { ok: false; reason: string };

/** Writes, reads back and deletes a throwaway entry; prints the failure's message and exits 1. */
const PROBE = (binding: string, account: string) => `
const { Entry } = require(${JSON.stringify(binding)});
try {
  const entry = new Entry(${JSON.stringify(CREDENTIAL_SERVICE)}, ${JSON.stringify(account)}, ${JSON.stringify(ENTRY_OPTIONS)});
  const value = require('node:crypto').randomUUID();
  entry.setPassword(value);
  const back = entry.getPassword();
  entry.deletePassword();
  if (back !== value) throw new Error('it gave back something else than was stored');
} catch (error) {
  process.stdout.write(String(error && error.message).split('\\n')[0]);
  process.exit(1);
}`;

/** Why the store did not answer, as the fallback announces it. */
function failure(platform: NodeJS.Platform, detail: string): string {
  const why = detail ? ` (${detail})` : '';
  if (platform === 'linux' || platform === 'freebsd') return `no Secret Service answered on the session D-Bus${why}`;
  return `${osStoreName(platform)} did not answer${why}`;
}

/**
 * Whether the OS credential store answers, asked once in a short-lived child process: a Secret Service
 * that is not running or waits on an unlock prompt can block the binding, and a child can be killed
 * after `APPLICATION.credentialProbeMs` where a blocked call in this process could not.
 */
export function probeCredentialStore(platform: NodeJS.Platform = process.platform): ProbeResult {
  let binding: string;
  try {
    binding = bindingPath();
  } catch (error) {
    return { ok: false, reason: failure(platform, `@napi-rs/keyring is not installed: ${(error as Error).message}`) };
  }
  const result = spawnSync(process.execPath, ['-e', PROBE(binding, `probe ${process.pid}`)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: APPLICATION.credentialProbeMs,
    killSignal: 'SIGKILL',
  });
  if (result.status === 0) return { ok: true };
  if (result.signal || (result.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT') {
    return { ok: false, reason: failure(platform, `no answer within ${APPLICATION.credentialProbeMs / 1000} s`) };
  }
  if (result.error) return { ok: false, reason: failure(platform, result.error.message) };
  return { ok: false, reason: failure(platform, result.stdout.trim()) };
}
