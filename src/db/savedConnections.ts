import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { displayUrl, parseServerUrl } from './connectionUrl.js';
import { isPlainObject } from '../protocol/jsonrpc.js';
import { writeFileAtomic } from '../core/atomicFile.js';

export const externalAccessLevels = ['blocked', 'readOnly', 'readWrite'] as const;
export const aiPolicies = ['never', 'askEachTime', 'always'] as const;

type ConnectionSettings = {
  id: string;
  name: string;
  description?: string;
  externalAccess: (typeof externalAccessLevels)[number];
  aiPolicy: (typeof aiPolicies)[number];
};

/** An embedded SQLite file, or a PostgreSQL / MySQL (MariaDB) server named by its URL. */
export type SavedConnection = ConnectionSettings &
  (
    | { engine: 'sqlite'; /** Path of the SQLite file. */ path: string }
    | {
        engine: 'postgres' | 'mysql';
        /** `postgres://user:password@host:port/database` or `mysql://…`; the config file is 0600. */
        url: string;
      }
  );

/** A saved connection as it may leave the process: the URL's password replaced by `***`. */
export function withoutPassword(connection: SavedConnection): SavedConnection {
  return connection.engine === 'sqlite' ? connection : { ...connection, url: displayUrl(connection.url) };
}

export type Config = { connections: SavedConnection[] };

export const CONFIG_FILE = 'config.json';

export class ConfigError extends Error {}

/** Validates one saved connection (from the file, or from `sluice connections add`). */
export function parseConnection(value: unknown, where: string): SavedConnection {
  if (!isPlainObject(value)) throw new ConfigError(`${where} must be an object`);
  const {
    id,
    name,
    engine,
    path,
    url,
    description,
    externalAccess = 'readOnly',
    aiPolicy = 'askEachTime',
  } = value;
  if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(id)) {
    throw new ConfigError(`${where}.id must be 1 to 64 letters, digits, _ or -`);
  }
  if (typeof name !== 'string' || name.length === 0) throw new ConfigError(`${where}.name must be a string`);
  if (engine !== 'sqlite' && engine !== 'postgres' && engine !== 'mysql') {
    throw new ConfigError(`${where}.engine must be "sqlite", "postgres" or "mysql"`);
  }
  if (engine === 'sqlite' && (typeof path !== 'string' || path.length === 0)) {
    throw new ConfigError(`${where}.path must be a file path`);
  }
  if (engine !== 'sqlite' && (typeof url !== 'string' || parseServerUrl(url)?.engine !== engine)) {
    throw new ConfigError(`${where}.url must be a ${engine}:// URL with a host and a database`);
  }
  if (!externalAccessLevels.includes(externalAccess as never)) {
    throw new ConfigError(`${where}.externalAccess must be one of ${externalAccessLevels.join(', ')}`);
  }
  if (!aiPolicies.includes(aiPolicy as never)) {
    throw new ConfigError(`${where}.aiPolicy must be one of ${aiPolicies.join(', ')}`);
  }
  const settings: ConnectionSettings = {
    id,
    name,
    ...(typeof description === 'string' ? { description } : {}),
    externalAccess: externalAccess as SavedConnection['externalAccess'],
    aiPolicy: aiPolicy as SavedConnection['aiPolicy'],
  };
  return engine === 'sqlite'
    ? { ...settings, engine, path: path as string }
    : { ...settings, engine, url: url as string };
}

const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 64) || 'connection';

/**
 * A new connection from what a person gives: a name, an SQLite file's absolute path or a server's URL
 * (the engine follows from its scheme), and optionally an id (else made from the name) and its settings.
 */
export function newConnection(fields: Record<string, unknown>): SavedConnection {
  const { name, id, path, url, ...settings } = fields;
  if (typeof name !== 'string' || name.trim() === '') throw new ConfigError('name must be a non-empty string');
  if ((path === undefined) === (url === undefined)) throw new ConfigError('give either path (SQLite) or url (PostgreSQL, MySQL)');
  const engine = typeof url === 'string' ? parseServerUrl(url)?.engine : 'sqlite';
  if (engine === undefined) {
    throw new ConfigError('url must be postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE or mysql://… (mariadb://…)');
  }
  if (engine === 'sqlite' && (typeof path !== 'string' || !isAbsolute(path))) throw new ConfigError('path must be an absolute file path');
  return parseConnection(
    { ...settings, id: id ?? slug(name), name: name.trim(), engine, ...(engine === 'sqlite' ? { path } : { url }) },
    'the connection',
  );
}

export function readConfig(dataDir: string): Config | undefined {
  const file = join(dataDir, CONFIG_FILE);
  if (!existsSync(file)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isPlainObject(raw) || !Array.isArray(raw.connections)) {
    throw new ConfigError(`${file} must be an object with a "connections" array`);
  }
  const connections = raw.connections.map((c, index) => parseConnection(c, `${CONFIG_FILE}: connections[${index}]`));
  const ids = new Set(connections.map((c) => c.id));
  if (ids.size !== connections.length) throw new ConfigError(`${file}: connection ids must be unique`);
  return { connections };
}

export function writeConfig(dataDir: string, config: Config): void {
  writeFileAtomic(join(dataDir, CONFIG_FILE), `${JSON.stringify(config, null, 2)}\n`);
}
