import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { displayUrl, parseServerUrl, type ServerAddress } from './connectionUrl.js';
import { TlsSettingsError } from '../reach/tlsSettings.js';
import { parseSshOptions, type SshOptions } from '../reach/sshOptions.js';
import { isPlainObject } from '../../protocol/jsonrpc.js';
import { writeFileAtomic } from '../../core/atomicFile.js';
import { nameRefusal } from '../../core/nameCharacters.js';
import { type ColumnPolicy, parseColumnPolicy } from './columnPolicy.js';
import { SECRETS_IN_FILES, type SecretHome, secretAccount, settleSecrets } from '../../platform/secretHome.js';

const externalAccessLevels = ['blocked', 'readOnly', 'readWrite'] as const;
const aiPolicies = ['never', 'askEachTime', 'always'] as const;

type ConnectionSettings = {
  id: string;
  name: string;
  description?: string;
  externalAccess: (typeof externalAccessLevels)[number];
  aiPolicy: (typeof aiPolicies)[number];
  /** Private columns: masked, hashed or hidden for every token it does not exempt (issue 30). */
  columnPolicy?: ColumnPolicy;
};

/** An embedded SQLite or DuckDB database, or a PostgreSQL / MySQL (MariaDB) server named by its URL. */
export type SavedConnection = ConnectionSettings &
  (
    | { engine: 'sqlite'; /** Path of the SQLite file. */ path: string }
    | {
        engine: 'duckdb';
        /** Path of the DuckDB file, or `:memory:`. */
        path: string;
        /** The only directory its statements may read files from (read_csv, read_parquet, …); none without it. */
        filesDir?: string;
      }
    | {
        engine: 'postgres' | 'mysql';
        /**
         * `postgres://user:password@host:port/database` or `mysql://…`. In memory with its password; in
         * the config file (0600) without it when the OS credential store keeps it (see `writeConfig`).
         */
        url: string;
        /** Reached through this SSH tunnel (the URL's host and port as the SSH server sees them). */
        ssh?: SshOptions;
      }
  );

/** A connection to a server, named by a URL (the others name a file). */
export const hasUrl = (connection: SavedConnection): connection is Extract<SavedConnection, { url: string }> => 'url' in connection;

/** A saved connection as it may leave the process: the URL's password replaced by `***`, no SSH key passphrase. */
export function withoutPassword(connection: SavedConnection): SavedConnection {
  if (!hasUrl(connection)) return connection;
  const shown = { ...connection, url: displayUrl(connection.url) };
  if (!connection.ssh?.passphrase) return shown;
  const { passphrase: _secret, ...ssh } = connection.ssh;
  return { ...shown, ssh };
}

/** The config file: the saved connections, and `undo: false` to keep no rows of approved writes (undo off). */
export type Config = { connections: SavedConnection[]; undo?: boolean };

export const CONFIG_FILE = 'config.json';

export class ConfigError extends Error {}

/** The URL's address; TLS parameters it cannot use are a ConfigError saying which. */
function serverUrl(url: string, where: string): ServerAddress | undefined {
  try {
    return parseServerUrl(url);
  } catch (error) {
    if (error instanceof TlsSettingsError) throw new ConfigError(`${where}: ${error.message}`);
    throw error;
  }
}

/** Validates one saved connection (from the file, or from `sluice connections add`). */
export function parseConnection(value: unknown, where: string): SavedConnection {
  if (!isPlainObject(value)) throw new ConfigError(`${where} must be an object`);
  const {
    id,
    name,
    engine,
    path,
    filesDir,
    url,
    ssh,
    description,
    externalAccess = 'readOnly',
    aiPolicy = 'askEachTime',
    columnPolicy,
  } = value;
  if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(id)) {
    throw new ConfigError(`${where}.id must be 1 to 64 letters, digits, _ or -`);
  }
  if (typeof name !== 'string' || name.length === 0) throw new ConfigError(`${where}.name must be a string`);
  if (engine !== 'sqlite' && engine !== 'postgres' && engine !== 'mysql' && engine !== 'duckdb') {
    throw new ConfigError(`${where}.engine must be "sqlite", "postgres", "mysql" or "duckdb"`);
  }
  const inFile = engine === 'sqlite' || engine === 'duckdb';
  if (inFile && (typeof path !== 'string' || path.length === 0)) {
    throw new ConfigError(`${where}.path must be a file path${engine === 'duckdb' ? ' or :memory:' : ''}`);
  }
  if (filesDir !== undefined && (engine !== 'duckdb' || typeof filesDir !== 'string' || !isAbsolute(filesDir))) {
    throw new ConfigError(`${where}.filesDir must be an absolute directory path, on DuckDB connections only`);
  }
  if (!inFile && (typeof url !== 'string' || serverUrl(url, `${where}.url`)?.engine !== engine)) {
    throw new ConfigError(`${where}.url must be a ${engine}:// URL with a host and a database`);
  }
  if (ssh !== undefined && inFile) throw new ConfigError(`${where}.ssh is for PostgreSQL and MySQL connections only`);
  let tunnel: SshOptions | undefined;
  try {
    tunnel = ssh === undefined ? undefined : parseSshOptions(ssh, `${where}.ssh`);
  } catch (error) {
    throw new ConfigError((error as Error).message);
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
    ...(columnPolicy === undefined ? {} : { columnPolicy: policyOf(columnPolicy, `${where}.columnPolicy`) }),
  };
  if (engine === 'duckdb') return { ...settings, engine, path: path as string, ...(filesDir === undefined ? {} : { filesDir }) };
  return engine === 'sqlite'
    ? { ...settings, engine, path: path as string }
    : { ...settings, engine, url: url as string, ...(tunnel ? { ssh: tunnel } : {}) };
}

function policyOf(value: unknown, where: string): ColumnPolicy {
  try {
    return parseColumnPolicy(value, where);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 64) || 'connection';

/**
 * A new connection from what a person gives: a name (no control characters, line separators or bidi
 * controls; a saved file's names are read as they are), an SQLite file's absolute path or a server's URL
 * (the engine follows from its scheme), and optionally an id (else made from the name) and its settings.
 * With `engine: 'duckdb'` the path names a DuckDB file (or is `:memory:`), and `filesDir` may follow.
 */
export function newConnection(fields: Record<string, unknown>): SavedConnection {
  const { name, id, path, url, engine: given, ...settings } = fields;
  if (typeof name !== 'string' || name.trim() === '') throw new ConfigError('name must be a non-empty string');
  const refused = nameRefusal('name', name);
  if (refused) throw new ConfigError(refused);
  if ((path === undefined) === (url === undefined)) throw new ConfigError('give either path (SQLite) or url (PostgreSQL, MySQL)');
  const engine = typeof url === 'string' ? serverUrl(url, 'url')?.engine : given === 'duckdb' ? 'duckdb' : 'sqlite';
  if (engine === undefined) {
    throw new ConfigError('url must be postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE or mysql://… (mariadb://…)');
  }
  if (engine === 'sqlite' && (typeof path !== 'string' || !isAbsolute(path))) throw new ConfigError('path must be an absolute file path');
  if (engine === 'duckdb' && (typeof path !== 'string' || !(isAbsolute(path) || path === ':memory:'))) {
    throw new ConfigError('path must be an absolute file path or :memory:');
  }
  return parseConnection(
    { ...settings, id: id ?? slug(name), name: name.trim(), engine, ...(url === undefined ? { path } : { url }) },
    'the connection',
  );
}

/** In the config file, beside a URL without its password: the password is in the OS credential store. */
const PASSWORD_IN = { passwordIn: 'credentialStore' } as const;

/** The URL's password as written in it (percent-encoded), `''` when it has none. */
const passwordOf = (url: string) => new URL(url).password;

function withPassword(url: string, password: string): string {
  const parsed = new URL(url);
  parsed.password = password;
  return parsed.toString();
}

/** In the config file, in an `ssh` block without its `passphrase`: the passphrase is in the OS credential store. */
const PASSPHRASE_IN = { passphraseIn: 'credentialStore' } as const;

/** Ids of the connections whose SSH key passphrase the config file says is in the OS credential store. */
const storedPassphraseIds = (entries: unknown[]) =>
  new Set(
    entries.flatMap((entry) =>
      isPlainObject(entry) && isPlainObject(entry.ssh) && entry.ssh.passphraseIn === PASSPHRASE_IN.passphraseIn ? [entry.id] : [],
    ),
  );

/** The connection with its SSH key passphrase from `found` (under `account`), when there is one. */
function withPassphrase(c: SavedConnection, found: Map<string, string>, account: string): SavedConnection {
  const passphrase = found.get(account);
  return !hasUrl(c) || !c.ssh || passphrase === undefined ? c : { ...c, ssh: { ...c.ssh, passphrase } };
}

function readRaw(file: string): unknown[] | undefined {
  return readRawFile(file)?.connections as unknown[] | undefined;
}

/** The config file as it is, checked to be an object with a `connections` array. */
function readRawFile(file: string): Record<string, unknown> | undefined {
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
  if (raw.undo !== undefined && typeof raw.undo !== 'boolean') throw new ConfigError(`${file}: "undo" must be true or false`);
  return raw;
}

/** Ids of the connections whose password the config file says is in the OS credential store. */
const storedPasswordIds = (entries: unknown[]) =>
  new Set(entries.flatMap((entry) => (isPlainObject(entry) && entry.passwordIn === PASSWORD_IN.passwordIn ? [entry.id] : [])));

/**
 * The saved connections, each URL with its password (from the file or the OS credential store, per
 * `secrets`); passwords found on the wrong side move to the home's target first.
 */
export function readConfig(dataDir: string, secrets: SecretHome = SECRETS_IN_FILES): Config | undefined {
  const file = join(dataDir, CONFIG_FILE);
  const entries = readRaw(file);
  if (entries === undefined) return undefined;
  const parsed = entries.map((c, index) => parseConnection(c, `${CONFIG_FILE}: connections[${index}]`));
  const ids = new Set(parsed.map((c) => c.id));
  if (ids.size !== parsed.length) throw new ConfigError(`${file}: connection ids must be unique`);
  const stored = storedPasswordIds(entries);
  const account = (id: string) => secretAccount(secrets, 'connection', id);
  const slots = parsed.flatMap((c) =>
    !hasUrl(c) || (passwordOf(c.url) === '' && !stored.has(c.id))
      ? []
      : [{ account: account(c.id), inFile: passwordOf(c.url) || undefined }],
  );
  const storedSsh = storedPassphraseIds(entries);
  const sshAccount = (id: string) => secretAccount(secrets, 'connection-ssh', id);
  const sshSlots = parsed.flatMap((c) =>
    !hasUrl(c) || !c.ssh || (c.ssh.passphrase === undefined && !storedSsh.has(c.id))
      ? []
      : [{ account: sshAccount(c.id), inFile: c.ssh.passphrase }],
  );
  let passphrases = new Map<string, string>();
  const restore = (found: Map<string, string>) =>
    parsed.map((c) => {
      const password = hasUrl(c) ? found.get(account(c.id)) : undefined;
      const opened = withPassphrase(c, passphrases, sshAccount(c.id));
      return !hasUrl(opened) || password === undefined ? opened : { ...opened, url: withPassword(opened.url, password) };
    });
  const { found } = settleSecrets(secrets, slots, { file: CONFIG_FILE, noun: 'database password' }, (found) =>
    writeConfig(dataDir, { connections: restore(found) }, secrets),
  );
  passphrases = settleSecrets(secrets, sshSlots, { file: CONFIG_FILE, noun: 'SSH key passphrase' }, (foundSsh) => {
    passphrases = foundSsh;
    writeConfig(dataDir, { connections: restore(found) }, secrets);
  }).found;
  const undo = readRawFile(file)?.undo as boolean | undefined;
  return { connections: restore(found), ...(undo === undefined ? {} : { undo }) };
}

/**
 * Writes the saved connections. When `secrets` targets the OS store, each password goes there first
 * and the file keeps the URL without it; a connection whose stored password could not be read keeps
 * its mark, and the store forgets the passwords of connections no longer saved.
 */
export function writeConfig(dataDir: string, config: Config, secrets: SecretHome = SECRETS_IN_FILES): void {
  const file = join(dataDir, CONFIG_FILE);
  const existing = readRawFile(file);
  const raw = (existing?.connections as unknown[] | undefined) ?? [];
  const previous = storedPasswordIds(raw);
  const previousSsh = storedPassphraseIds(raw);
  const account = (id: string) => secretAccount(secrets, 'connection', id);
  const sshAccount = (id: string) => secretAccount(secrets, 'connection-ssh', id);
  const sshKept = new Set<string>();
  const withSsh = (c: SavedConnection): SavedConnection => {
    if (!hasUrl(c) || !c.ssh) return c;
    const { passphrase, ...ssh } = c.ssh;
    if (passphrase === undefined) {
      if (!previousSsh.has(c.id)) return c;
      sshKept.add(c.id);
      return { ...c, ssh: { ...ssh, ...PASSPHRASE_IN } };
    }
    if (secrets.target === 'file') return c;
    secrets.store?.set(sshAccount(c.id), passphrase);
    sshKept.add(c.id);
    return { ...c, ssh: { ...ssh, ...PASSPHRASE_IN } };
  };
  const entries = config.connections.map(withSsh).map((c) => {
    if (!hasUrl(c)) return c;
    const password = passwordOf(c.url);
    if (password === '') return previous.has(c.id) ? { ...c, ...PASSWORD_IN } : c;
    if (secrets.target === 'file') return c;
    secrets.store?.set(account(c.id), password);
    return { ...c, url: withPassword(c.url, ''), ...PASSWORD_IN };
  });
  // Settings beside the connections (`undo`) stay as the file has them unless `config` names them.
  writeFileAtomic(file, `${JSON.stringify({ ...existing, ...config, connections: entries }, null, 2)}\n`);
  const kept = new Set(entries.flatMap((entry) => ('passwordIn' in entry ? [entry.id] : [])));
  for (const id of previous) if (!kept.has(id as string)) secrets.store?.delete(account(id as string));
  for (const id of previousSsh) if (!sshKept.has(id as string)) secrets.store?.delete(sshAccount(id as string));
}
