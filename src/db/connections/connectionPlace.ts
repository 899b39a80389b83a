import { parseServerUrl } from './connectionUrl.js';
import { hasUrl, type SavedConnection } from './savedConnections.js';

/**
 * Where a connection's statements land, in words that hold no secret: the engine and the file, or the
 * server's host, port and database (and the SSH host it is reached through). An undo runs only where its
 * write ran: a connection edited to point elsewhere since has another place.
 */
export function connectionPlace(connection: SavedConnection): string {
  if (!hasUrl(connection)) return `${connection.engine}:${connection.path}`;
  const address = parseServerUrl(connection.url);
  const through = connection.ssh ? ` via ssh ${connection.ssh.host}:${connection.ssh.port ?? 22}` : '';
  return `${connection.engine}://${address?.host ?? '?'}:${address?.port ?? '?'}/${address?.database ?? ''}${through}`;
}
