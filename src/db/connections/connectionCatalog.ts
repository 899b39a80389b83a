import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import { hasUrl, type SavedConnection } from './savedConnections.js';
import { DriverFailure } from '../driverFailure.js';
import { ChangeFeed } from './changeFeed.js';
import { parseServerUrl } from './connectionUrl.js';
import type { Database } from '../database.js';
import { retirable, type Retirable } from './retirableDatabase.js';
import { SessionShares } from './sessionShares.js';
import { engineModule, SqliteProcessPool, sqlitePoolSettings } from '../engines/registry.js';
import { type AppClock, systemClock } from '../../core/clock.js';
import { DATABASES } from '../../core/contract.js';
import type { SshPlaces } from '../reach/sshTunnel.js';

/** The saved connections and their drivers, each opened on first use. */
export class ConnectionCatalog {
  readonly #connections: Map<string, SavedConnection>;
  readonly #open = new Map<string, Retirable>();
  /** Schema changes made through Sluice, and changes to the set of connections. */
  readonly changes = new ChangeFeed();
  /** Each token's share of each connection's sessions. */
  readonly shares = new SessionShares();
  /** Told, and awaited, before a connection's drivers are retired: what holds their sessions gives them back. */
  readonly #beforeRetire: ((id: string) => Promise<void>)[] = [];

  readonly #clock: AppClock;
  readonly #ssh: SshPlaces | undefined;
  /** The query processes of every SQLite connection; closed with the catalog. */
  readonly #sqlite: SqliteProcessPool;

  /** The installation's key for hashed private columns (capabilities/maskedValues.ts). */
  readonly maskingKey: Buffer;

  /**
   * `clock` times the drivers' statement deadlines; SSH tunnels find host keys where `ssh` says;
   * SQLite connections share `sqlite` (absent: a pool of the default size, started on first use);
   * hashed private columns use `maskingKey` (absent: a key of this catalog's own).
   */
  constructor(connections: SavedConnection[], clock: AppClock = systemClock, ssh?: SshPlaces, sqlite?: SqliteProcessPool, maskingKey?: Buffer) {
    this.maskingKey = maskingKey ?? randomBytes(32);
    this.#clock = clock;
    this.#ssh = ssh;
    this.#sqlite = sqlite ?? new SqliteProcessPool(sqlitePoolSettings(), clock);
    this.#connections = new Map(connections.map((c) => [c.id, c]));
  }

  /** `listener` runs before the drivers of a removed or moved connection are retired, and is awaited. */
  beforeRetire(listener: (id: string) => Promise<void>): void {
    this.#beforeRetire.push(listener);
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
   * the new target. When it points elsewhere or its private columns changed, what `beforeRetire` holds
   * for it (reads behind a cursor, masked by the policy they began under) ends first.
   */
  async update(connection: SavedConnection): Promise<void> {
    const current = this.#connections.get(connection.id);
    if (!current) throw new Error(`no connection with id "${connection.id}"`);
    this.#connections.set(connection.id, connection);
    const moved = whereItPoints(current) !== whereItPoints(connection);
    const policyChanged = JSON.stringify(current.columnPolicy ?? null) !== JSON.stringify(connection.columnPolicy ?? null);
    const drivers = moved ? this.#driversOf(connection.id) : [];
    this.changes.emit({ type: 'connections' });
    if (moved || policyChanged) await this.#retiring(connection.id);
    await Promise.all(drivers.map((open) => open.retire(`connection "${connection.id}" was changed to point elsewhere while the statement ran`)));
  }

  /** Forgets a connection and retires its driver: statements running on it end with an error saying so. */
  async remove(id: string): Promise<void> {
    if (!this.#connections.delete(id)) throw new Error(`no connection with id "${id}"`);
    const drivers = this.#driversOf(id);
    this.changes.emit({ type: 'connections' });
    await this.#retiring(id);
    await Promise.all(drivers.map((open) => open.retire(`connection "${id}" was removed while the statement ran`)));
  }

  /**
   * The connection's driver; a server's pools connect on first use, and reconnect after it comes back.
   * `database` names another database on the same server (PostgreSQL, MySQL): its own pools, at most
   * `DATABASES.otherDatabasesPerConnection` per connection.
   */
  database(connection: SavedConnection, database?: string): Database {
    return this.onDatabase(connection, database).db;
  }

  /**
   * `database` above, with the connection as it points there (named for dialogs) and the key of that
   * pair (the connection's id, or the id and the database).
   */
  onDatabase(connection: SavedConnection, database?: string): { target: SavedConnection; key: string; db: Database } {
    const target = connectionOnDatabase(connection, database);
    const key = target === connection ? connection.id : `${connection.id}\u0000${database}`;
    let open = this.#open.get(key);
    if (open) {
      // Map order is use order: the first entry of a connection is its least recently used.
      this.#open.delete(key);
    } else {
      open = retirable(openDatabase(target, this.#clock, this.#ssh, this.#sqlite));
      if (target !== connection) this.#makeRoomBeside(connection.id);
    }
    this.#open.set(key, open);
    return { target, key, db: open.db };
  }

  /**
   * Closes the pools of the least recently used other database of `id` when it has the most open. Closed,
   * not retired: statements running there (perhaps another token's) finish; only new ones are refused.
   */
  #makeRoomBeside(id: string): void {
    const others = [...this.#open.keys()].filter((key) => key.startsWith(`${id}\u0000`));
    if (others.length < DATABASES.otherDatabasesPerConnection) return;
    const oldest = others[0] as string;
    const open = this.#open.get(oldest);
    this.#open.delete(oldest);
    void open?.release().catch(() => {});
  }

  async #retiring(id: string): Promise<void> {
    await Promise.all(this.#beforeRetire.map((listener) => listener(id)));
  }

  /** The drivers of a connection: its own and those of other databases on its server. */
  #driversOf(id: string): Retirable[] {
    const keys = [...this.#open.keys()].filter((key) => key === id || key.startsWith(`${id}\u0000`));
    const drivers = keys.map((key) => this.#open.get(key) as Retirable);
    for (const key of keys) this.#open.delete(key);
    return drivers;
  }

  async close(): Promise<void> {
    const open = [...this.#open.values()];
    this.#open.clear();
    await Promise.all(open.map(({ db }) => db.close()));
    await this.#sqlite.close();
  }
}

/**
 * The connection as it points at `database` (absent: itself). On PostgreSQL and MySQL another database
 * of the same server is the same connection with the URL's database replaced; SQLite and DuckDB have one
 * database: naming it (as list_databases does) is the connection itself, naming another is `not_found`.
 */
export function connectionOnDatabase(connection: SavedConnection, database: string | undefined): SavedConnection {
  if (database === undefined) return connection;
  if (!hasUrl(connection)) {
    if (database === ownDatabaseName(connection)) return connection;
    throw new DriverFailure('not_found', `connection "${connection.id}" has one database, "${ownDatabaseName(connection)}"; leave database out`);
  }
  if (database === parseServerUrl(connection.url)?.database) return connection;
  const url = new URL(connection.url);
  url.pathname = `/${encodeURIComponent(database)}`;
  // Named in dialogs and progress as the database it reaches; the client chose it, so telling it is no leak.
  return { ...connection, name: `${connection.name}, database ${database}`, url: url.toString() };
}

/** What list_databases calls the one database of a SQLite or DuckDB connection. */
function ownDatabaseName(connection: Exclude<SavedConnection, { url: string }>): string {
  return engineModule(connection.engine).fileDatabaseName?.(connection) ?? basename(connection.path);
}

/** Everything but the connection's settings: its engine, file or URL, and how it is reached. */
function whereItPoints(connection: SavedConnection): string {
  const { id, name, description, externalAccess, aiPolicy, columnPolicy, ...where } = connection;
  return JSON.stringify(where);
}

/**
 * A fresh driver for one saved connection (the catalog keeps one per connection; a probe opens its own).
 * An SSH tunnel finds host keys where `ssh` says (and in the connection's own known-hosts file).
 * A SQLite file runs on the query processes of `sqlite`, else on a pool of its own.
 */
export function openDatabase(connection: SavedConnection, clock: AppClock = systemClock, ssh?: SshPlaces, sqlite?: SqliteProcessPool): Database {
  return engineModule(connection.engine).open(connection, { clock, ssh, sqlite });
}
