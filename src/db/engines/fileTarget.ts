import { existsSync } from 'node:fs';
import type { SavedConnection } from '../connections/savedConnections.js';
import { DriverFailure } from '../driverFailure.js';

/** The path of a file connection (`:memory:` allowed where the engine has one); refuses a missing file and a server connection. */
export function connectionFile(connection: SavedConnection, inMemory = false): string {
  if (!('path' in connection)) throw new DriverFailure('not_connected', `connection "${connection.id}" has no database file`);
  if (!(inMemory && connection.path === ':memory:') && !existsSync(connection.path)) {
    throw new DriverFailure('not_connected', `the database file of connection "${connection.id}" is missing`);
  }
  return connection.path;
}
