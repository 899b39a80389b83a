import { existsSync } from 'node:fs';
import type { SavedConnection } from './savedConnections.js';
import { ToolError } from '../core/errors.js';
import { ChangeFeed } from './changeFeed.js';
import { parseServerUrl } from './connectionUrl.js';
import type { Database } from './database.js';
import { DuckdbDatabase } from './duckdb/duckdbDatabase.js';
import { MysqlDatabase } from './mysql/mysqlDatabase.js';
import { PostgresDatabase } from './postgres/postgresDatabase.js';
import { retirable, type Retirable } from './retirableDatabase.js';
import { SessionShares } from './sessionShares.js';
import { SqliteDatabase } from './sqlite/sqliteDatabase.js';
import { SshTunnel } from './sshTunnel.js';
import { type AppClock, systemClock } from '../core/clock.js';

/** The saved connections and their drivers, each opened on first use. */
export class ConnectionCatalog {
  readonly #connections: Map<string, SavedConnection>;
  readonly #open = new Map<string, Retirable>();
  /** Schema changes made through Sluice, and changes to the set of connections. */
  readonly changes = new ChangeFeed();
  /** Each token's share of each connection's sessions. */
  readonly shares = new SessionShares();

  readonly #clock: AppClock;
  readonly #knownHostsFile: string | undefined;

  /** `clock` times the drivers' statement deadlines; SSH tunnels check host keys in `knownHostsFile`. */
  constructor(connections: SavedConnection[], clock: AppClock = systemClock, knownHostsFile?: string) {
    this.#clock = clock;
    this.#knownHostsFile = knownHostsFile;
    this.#connections = new Map(connections.map((c) => [c.id, c]));
  }

  all(): SavedConnection[] {
    return [...this.#connections.values()];
  }

  get(id: string): SavedConnection | undefined {
    return this.#connections.get(id);
  }

  /** Saves a new connection; subscribers hear that the set of connections changed. */
  add(connection: SavedConnection): void {
    if (this.#connections.has(connection.id)) throw new Error(`a connection with id "${connection.id}" exists already`);
    this.#connections.set(connection.id, connection);
    this.changes.emit({ type: 'connections' });
  }

  /**
   * Replaces a saved connection; subscribers hear the set changed. When it now points elsewhere, its
   * driver is retired (statements running on it end with an error saying so) and the next use opens
   * the new target.
   */
  async update(connection: SavedConnection): Promise<void> {
    const current = this.#connections.get(connection.id);
    if (!current) throw new Error(`no connection with id "${connection.id}"`);
    this.#connections.set(connection.id, connection);
    const open = this.#open.get(connection.id);
    const moved = whereItPoints(current) !== whereItPoints(connection);
    if (moved) this.#open.delete(connection.id);
    this.changes.emit({ type: 'connections' });
    if (moved) await open?.retire(`connection "${connection.id}" was changed to point elsewhere while the statement ran`);
  }

  /** Forgets a connection and retires its driver: statements running on it end with an error saying so. */
  async remove(id: string): Promise<void> {
    if (!this.#connections.delete(id)) throw new Error(`no connection with id "${id}"`);
    const open = this.#open.get(id);
    this.#open.delete(id);
    this.changes.emit({ type: 'connections' });
    await open?.retire(`connection "${id}" was removed while the statement ran`);
  }

  /** The connection's driver; a server's pools connect on first use, and reconnect after it comes back. */
  database(connection: SavedConnection): Database {
    let open = this.#open.get(connection.id);
    if (!open) {
      open = retirable(openDatabase(connection, this.#clock, this.#knownHostsFile));
      this.#open.set(connection.id, open);
    }
    return open.db;
  }

  async close(): Promise<void> {
    const open = [...this.#open.values()];
    this.#open.clear();
    await Promise.all(open.map(({ db }) => db.close()));
  }
}

/** Everything but the connection's settings: its engine, file or URL, and how it is reached. */
function whereItPoints(connection: SavedConnection): string {
  const { id, name, description, externalAccess, aiPolicy, ...where } = connection;
  return JSON.stringify(where);
}

/**
 * A fresh driver for one saved connection (the catalog keeps one per connection; a probe opens its own).
 * An SSH tunnel checks host keys in the connection's own known-hosts file, else in `knownHostsFile`.
 */
export function openDatabase(connection: SavedConnection, clock: AppClock = systemClock, knownHostsFile?: string): Database {
  if (connection.engine === 'sqlite') {
    if (!existsSync(connection.path)) {
      throw new ToolError('not_connected', `the database file of connection "${connection.id}" is missing`);
    }
    return new SqliteDatabase(connection.path, clock);
  }
  if (connection.engine === 'duckdb') {
    if (connection.path !== ':memory:' && !existsSync(connection.path)) {
      throw new ToolError('not_connected', `the database file of connection "${connection.id}" is missing`);
    }
    return new DuckdbDatabase({ path: connection.path, filesDir: connection.filesDir }, clock);
  }
  const address = parseServerUrl(connection.url);
  if (!address) throw new ToolError('not_connected', `connection "${connection.id}" has no usable URL`);
  const hostKeys = connection.ssh && (connection.ssh.knownHostsFile ?? knownHostsFile);
  if (connection.ssh && !hostKeys) throw new ToolError('not_connected', `connection "${connection.id}" has no known-hosts file to check its SSH host key in`);
  const tunnel =
    connection.ssh &&
    new SshTunnel({
      connectionId: connection.id,
      ssh: connection.ssh,
      target: { host: address.host, port: address.port },
      knownHostsFile: hostKeys as string,
      clock,
    });
  return address.engine === 'postgres' ? new PostgresDatabase(address, tunnel) : new MysqlDatabase(address, clock, tunnel);
}
