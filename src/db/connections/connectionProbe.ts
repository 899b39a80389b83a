import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type SavedConnection } from './savedConnections.js';
import { openDatabase } from './connectionCatalog.js';
import { KNOWN_HOSTS_FILE } from '../reach/knownHosts.js';
import { valuesOf } from '../database.js';
import { systemClock } from '../../core/clock.js';
import { DATABASES } from '../../core/contract.js';

/** `tls`: the TLS protocol of a PostgreSQL or MySQL session (`TLS 1.3`) or `no TLS`; absent for files. */
export type ProbeResult = { version: string; tls?: string; ms: number };

const PROBE_TIMEOUT_MS = DATABASES.connectionCheckTimeoutMs;

/** Reads the engine's version; SQLite also reads `sqlite_master`, which fails on a file that is not a database. */
const VERSION_SQL = {
  sqlite: 'SELECT sqlite_version(), (SELECT count(*) FROM sqlite_master)',
  postgres: "SELECT current_setting('server_version')",
  mysql: 'SELECT VERSION()',
  duckdb: 'SELECT version()',
} as const;

/** The session's TLS protocol (`TLSv1.3`), or nothing without TLS: one more statement on a server. */
const TLS_SQL = {
  postgres: 'SELECT version FROM pg_stat_ssl WHERE pid = pg_backend_pid() AND ssl',
  mysql: "SHOW SESSION STATUS LIKE 'Ssl_version'",
} as const;

/** `TLSv1.3` → `TLS 1.3`; an empty protocol (or none) → `no TLS`. */
function tlsOf(raw: unknown): string {
  const text = typeof raw === 'string' ? raw.trim() : '';
  return text === '' ? 'no TLS' : text.replace(/^TLSv/, 'TLS ');
}

/** `15.4 (Debian 15.4-1.pgdg120+1)` → `PostgreSQL 15.4`; `10.11.6-MariaDB-0+deb12u1` → `MariaDB 10.11.6`. */
function productVersion(engine: SavedConnection['engine'], raw: string): string {
  const number = /^[\d.]+/.exec(raw)?.[0] ?? raw;
  if (engine === 'sqlite') return `SQLite ${number}`;
  if (engine === 'postgres') return `PostgreSQL ${number}`;
  if (engine === 'duckdb') return `DuckDB ${raw.replace(/^v/, '')}`;
  return `${raw.includes('MariaDB') ? 'MariaDB' : 'MySQL'} ${number}`;
}

function sqliteFileProblem(path: string): string | undefined {
  try {
    return statSync(path).isFile() ? undefined : `${path} is not a file`;
  } catch {
    return `${path} does not exist`;
  }
}

/**
 * Opens the connection with its own short-lived driver, reads the server's version (and, on a server,
 * whether the session uses TLS) and says how long that took; a failure is a ConfigError saying what
 * failed (the engine's own reason, password redacted).
 */
export async function probeConnection(connection: SavedConnection, dataDir: string): Promise<ProbeResult> {
  const inFile = connection.engine === 'sqlite' || (connection.engine === 'duckdb' && connection.path !== ':memory:');
  const problem = inFile ? sqliteFileProblem(connection.path) : undefined;
  if (problem) throw new ConfigError(problem);
  const started = performance.now();
  const db = openDatabase(connection, systemClock, join(dataDir, KNOWN_HOSTS_FILE));
  const abort = new AbortController();
  // Referenced, and cleared only once the driver is closed: it keeps a short-lived command alive until
  // then, which the drivers' unreferenced handles (query processes, pools) do not.
  const deadline = setTimeout(() => abort.abort(new ConfigError(`no answer within ${PROBE_TIMEOUT_MS / 1000} s`)), PROBE_TIMEOUT_MS);
  try {
    const result = await db.read(VERSION_SQL[connection.engine], { maxRows: 1, timeoutMs: PROBE_TIMEOUT_MS, signal: abort.signal });
    const version = productVersion(connection.engine, String(valuesOf(result.rows)[0]?.[0]));
    if (connection.engine !== 'postgres' && connection.engine !== 'mysql') return { version, ms: Math.round(performance.now() - started) };
    // SHOW … LIKE answers (name, value); pg_stat_ssl the protocol alone, or no row without TLS.
    const tlsRow = valuesOf((await db.read(TLS_SQL[connection.engine], { maxRows: 1, timeoutMs: PROBE_TIMEOUT_MS, signal: abort.signal })).rows)[0];
    const tls = tlsOf(connection.engine === 'mysql' ? tlsRow?.[1] : tlsRow?.[0]);
    return { version, tls, ms: Math.round(performance.now() - started) };
  } catch (error) {
    const reason = (error as Error).message;
    if (connection.engine === 'sqlite' && /not a database/i.test(reason)) {
      throw new ConfigError(`${connection.path} is not a SQLite database`);
    }
    throw new ConfigError(reason);
  } finally {
    await db.close();
    clearTimeout(deadline);
  }
}
