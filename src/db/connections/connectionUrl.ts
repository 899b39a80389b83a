import type { Engine } from '../database.js';
import { parseTlsSettings, type TlsSettings } from '../reach/tlsSettings.js';

type ServerEngine = Exclude<Engine, 'sqlite' | 'duckdb'>;

/**
 * What each URL scheme connects to: the engine, its default port, and, where its driver checks a
 * certificate's names only against a host name (`mysql2`), the server named in saying verify-full needs one.
 */
type Scheme = { engine: ServerEngine; port: number; namesNeedHostFor?: string };
const POSTGRES: Scheme = { engine: 'postgres', port: 5432 };
const MYSQL: Scheme = { engine: 'mysql', port: 3306, namesNeedHostFor: 'MySQL' };
const SCHEMES: Record<string, Scheme> = { 'postgres:': POSTGRES, 'postgresql:': POSTGRES, 'mysql:': MYSQL, 'mariadb:': MYSQL };

export type ServerAddress = {
  engine: ServerEngine;
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  /** From the URL's `sslmode`, `sslrootcert`, `sslcert` and `sslkey`; absent: plain. */
  tls?: TlsSettings;
};

/**
 * A `postgres://` or `mysql://` (`mariadb://`) URL with a host and a database; undefined if it is not one.
 * TLS parameters it cannot use throw a TlsSettingsError saying which.
 */
export function parseServerUrl(text: string): ServerAddress | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const scheme = SCHEMES[url.protocol];
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!scheme || url.hostname === '' || database === '' || database.includes('/')) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const tls = parseTlsSettings(url.searchParams, host, scheme.namesNeedHostFor);
  return {
    engine: scheme.engine,
    host,
    port: url.port ? Number(url.port) : scheme.port,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database,
    ...(tls ? { tls } : {}),
  };
}

/** The URL as it may be shown: the password replaced by `***`. */
export function displayUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(not a URL)';
  }
}
