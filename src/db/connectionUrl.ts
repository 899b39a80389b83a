import type { Engine } from './database.js';

const SCHEMES: Record<string, Exclude<Engine, 'sqlite'>> = {
  'postgres:': 'postgres',
  'postgresql:': 'postgres',
  'mysql:': 'mysql',
  'mariadb:': 'mysql',
};

export type ServerAddress = {
  engine: Exclude<Engine, 'sqlite'>;
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
};

/** A `postgres://` or `mysql://` (`mariadb://`) URL with a host and a database; undefined if it is not one. */
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
  return {
    engine,
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : engine === 'postgres' ? 5432 : 3306,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database,
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
