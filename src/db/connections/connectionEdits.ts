import { ConfigError, newConnection, type SavedConnection } from './savedConnections.js';
import type { SshOptions } from '../reach/sshOptions.js';

/** What `connections update` may change; absent fields keep their value. */
export type ConnectionChanges = {
  name?: string;
  /** A new SQLite file (absolute path) or server URL: the connection may change engine. */
  path?: string;
  url?: string;
  externalAccess?: string;
  aiPolicy?: string;
  /** A new SSH tunnel, replacing the whole saved one; null removes it. */
  ssh?: SshOptions | null;
  /** A DuckDB connection's new files directory (absolute); null removes it. */
  filesDir?: string | null;
};

function refuseTakenName(list: SavedConnection[], connection: SavedConnection): void {
  const other = list.find((c) => c.id !== connection.id && c.name.toLowerCase() === connection.name.toLowerCase());
  if (other) throw new ConfigError(`the name "${connection.name}" is taken by connection "${other.id}" (names must be unique)`);
}

/** The list with `connection` added; refused when its id or its name is taken. */
export function withAdded(list: SavedConnection[], connection: SavedConnection): SavedConnection[] {
  if (list.some((c) => c.id === connection.id)) {
    throw new ConfigError(`a connection with id "${connection.id}" exists already (choose another with --id)`);
  }
  refuseTakenName(list, connection);
  return [...list, connection];
}

/**
 * A new URL whose password is `***`, the mask a listed URL carries, keeps the saved password: the
 * console shows the masked URL for editing.
 */
function withSavedPassword(text: string, current: SavedConnection): string {
  const saved = 'url' in current ? current.url : undefined;
  if (!saved) return text;
  try {
    const url = new URL(text);
    if (url.password !== '***') return text;
    url.password = new URL(saved).password;
    return url.toString();
  } catch {
    return text;
  }
}

/** The connection `id` with `changes` applied, checked as a new one would be (its name still unique). */
export function updatedConnection(list: SavedConnection[], id: string, changes: ConnectionChanges): SavedConnection {
  const current = list.find((c) => c.id === id);
  if (!current) throw new ConfigError(`no connection with id "${id}"`);
  if (changes.path !== undefined && changes.url !== undefined) throw new ConfigError('give either path (SQLite) or url (PostgreSQL, MySQL), not both');
  const { engine, ...all } = current;
  const removed = new Set([...(changes.ssh === null ? ['ssh'] : []), ...(changes.filesDir === null ? ['filesDir'] : [])]);
  const kept = Object.fromEntries(Object.entries(all).filter(([key]) => !removed.has(key)));
  const target =
    changes.path !== undefined || changes.url !== undefined
      ? { path: changes.path, url: changes.url && withSavedPassword(changes.url, current) }
      : 'path' in current
        ? { path: current.path, url: undefined }
        : { path: undefined, url: current.url };
  const given = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined && v !== null));
  const merged = Object.fromEntries(Object.entries({ ...kept, ...given, ...target }).filter(([, v]) => v !== undefined));
  // The engine goes on unless a URL is given: newConnection keeps a DuckDB file DuckDB, a path alone is SQLite otherwise.
  const connection = newConnection({ ...merged, id, ...(changes.url === undefined ? { engine } : {}) });
  refuseTakenName(list, connection);
  return connection;
}

/** The list with connection `id` left out; refused when there is none. */
export function withRemoved(list: SavedConnection[], id: string): SavedConnection[] {
  if (!list.some((c) => c.id === id)) throw new ConfigError(`no connection with id "${id}"`);
  return list.filter((c) => c.id !== id);
}
