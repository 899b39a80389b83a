import type { Engine } from '../database.js';
import { parseTlsSettings, type TlsSettings } from '../reach/tlsSettings.js';

const SCHEMES: Record<string, Exclude<Engine, 'sqlite' | 'duckdb'>> = {
  'postgres:': 'postgres',
  'postgresql:': 'postgres',
  'mysql:': 'mysql',
  'mariadb:': 'mysql',
};

export type ServerAddress = {
  engine: Exclude<Engine, 'sqlite' | 'duckdb'>;
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
  const engine = SCHEMES[url.protocol];
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!engine || url.hostname === '' || database === '' || database.includes('/')) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const tls = parseTlsSettings(url.searchParams, engine, host);
  return {
    engine,
    host,
    port: url.port ? Number(url.port) : engine === 'postgres' ? 5432 : 3306,
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
