import { statSync } from 'node:fs';
import { ConfigError, type SavedConnection } from './savedConnections.js';
import { openDatabase } from './connectionCatalog.js';
import { engineModule } from '../engines/registry.js';
import type { SshPlaces } from '../reach/sshTunnel.js';
import { valuesOf } from '../database.js';
import { namedRows } from '../catalog/catalogRead.js';
import { systemClock } from '../../core/clock.js';
import { DATABASES } from '../../core/contract.js';

/** `tls`: the TLS protocol of a PostgreSQL or MySQL session (`TLS 1.3`) or `no TLS`; absent for files. */
export type ProbeResult = { version: string; tls?: string; ms: number };

const PROBE_TIMEOUT_MS = DATABASES.connectionCheckTimeoutMs;

/** `TLSv1.3` → `TLS 1.3`; an empty protocol (or none) → `no TLS`. */
function tlsOf(raw: unknown): string {
  const text = typeof raw === 'string' ? raw.trim() : '';
  return text === '' ? 'no TLS' : text.replace(/^TLSv/, 'TLS ');
}

function fileProblem(path: string): string | undefined {
  try {
    return statSync(path).isFile() ? undefined : `${path} is not a file`;
  } catch {
    return `${path} does not exist`;
  }
}

/**
 * Opens the connection with its own short-lived driver, reads the server's version (and, on a server,
 * whether the session uses TLS) and says how long that took; a failure is a ConfigError saying what
 * failed (the engine's own reason, password redacted). An SSH tunnel finds host keys where `ssh` says.
 */
export async function probeConnection(connection: SavedConnection, ssh: SshPlaces): Promise<ProbeResult> {
  const { probe } = engineModule(connection.engine);
  const file = probe.fileOf?.(connection);
  const problem = file === undefined ? undefined : fileProblem(file);
  if (problem) throw new ConfigError(problem);
  const started = performance.now();
  const db = openDatabase(connection, systemClock, ssh);
  const abort = new AbortController();
  // Referenced, and cleared only once the driver is closed: it keeps a short-lived command alive until
  // then, which the drivers' unreferenced handles (query processes, pools) do not.
  const deadline = setTimeout(() => abort.abort(new ConfigError(`no answer within ${PROBE_TIMEOUT_MS / 1000} s`)), PROBE_TIMEOUT_MS);
  try {
    const result = await db.read(probe.versionSql, { maxRows: 1, timeoutMs: PROBE_TIMEOUT_MS, signal: abort.signal });
    const version = probe.productVersion(String(valuesOf(result.rows)[0]?.[0]));
    if (!probe.tls) return { version, ms: Math.round(performance.now() - started) };
    const [tlsRow] = namedRows(await db.read(probe.tls.sql, { maxRows: 1, timeoutMs: PROBE_TIMEOUT_MS, signal: abort.signal }));
    const tls = tlsOf(tlsRow?.[probe.tls.column]);
    return { version, tls, ms: Math.round(performance.now() - started) };
  } catch (error) {
    const reason = (error as Error).message;
    throw new ConfigError(probe.explainFailure?.(reason, connection) ?? reason);
  } finally {
    await db.close();
    clearTimeout(deadline);
  }
}
