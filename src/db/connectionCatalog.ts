import { existsSync } from 'node:fs';
import type { SavedConnection } from './savedConnections.js';
import { ToolError } from '../core/errors.js';
import { ChangeFeed } from './changeFeed.js';
import { parseServerUrl } from './connectionUrl.js';
import type { Database } from './database.js';
import { MysqlDatabase } from './mysql/mysqlDatabase.js';
import { PostgresDatabase } from './postgres/postgresDatabase.js';
import { SessionShares } from './sessionShares.js';
import { SqliteDatabase } from './sqlite/sqliteDatabase.js';
import { type AppClock, systemClock } from '../core/clock.js';

/** The saved connections and their drivers, each opened on first use. */
export class ConnectionCatalog {
  readonly #connections: Map<string, SavedConnection>;
  readonly #open = new Map<string, Database>();
  /** Schema changes made through Sluice, and changes to the set of connections. */
  readonly changes = new ChangeFeed();
  /** Each token's share of each connection's sessions. */
  readonly shares = new SessionShares();

  readonly #clock: AppClock;

  /** `clock` times the drivers' statement deadlines. */
  constructor(connections: SavedConnection[], clock: AppClock = systemClock) {
    this.#clock = clock;
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

  /** Replaces a saved connection's settings (not where it points); subscribers hear the set changed. */
  update(connection: SavedConnection): void {
    if (!this.#connections.has(connection.id)) throw new Error(`no connection with id "${connection.id}"`);
    this.#connections.set(connection.id, connection);
    this.changes.emit({ type: 'connections' });
  }

  /** Forgets a connection and closes its driver. */
  async remove(id: string): Promise<void> {
    if (!this.#connections.delete(id)) throw new Error(`no connection with id "${id}"`);
    const db = this.#open.get(id);
    this.#open.delete(id);
    this.changes.emit({ type: 'connections' });
    await db?.close();
  }

  /** The connection's driver; a server's pools connect on first use, and reconnect after it comes back. */
  database(connection: SavedConnection): Database {
    let db = this.#open.get(connection.id);
    if (!db) {
      db = openDatabase(connection, this.#clock);
      this.#open.set(connection.id, db);
    }
    return db;
  }

  async close(): Promise<void> {
    const open = [...this.#open.values()];
    this.#open.clear();
    await Promise.all(open.map((db) => db.close()));
  }
}

function openDatabase(connection: SavedConnection, clock: AppClock): Database {
  if (connection.engine === 'sqlite') {
    if (!existsSync(connection.path)) {
      throw new ToolError('not_connected', `the database file of connection "${connection.id}" is missing`);
    }
    return new SqliteDatabase(connection.path, clock);
  }
  const address = parseServerUrl(connection.url);
  if (!address) throw new ToolError('not_connected', `connection "${connection.id}" has no usable URL`);
  return address.engine === 'postgres' ? new PostgresDatabase(address) : new MysqlDatabase(address, clock);
}
