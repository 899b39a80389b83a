import type { SavedConnection } from './savedConnections.js';
import { parseServerUrl, type ServerAddress } from './connectionUrl.js';
import { DriverFailure } from '../driverFailure.js';
import { SshTunnel } from '../reach/sshTunnel.js';
import type { AppClock } from '../../core/clock.js';

/**
 * Where a server connection's driver connects: the URL's address, through an SSH tunnel when the
 * connection has one. The tunnel checks host keys in the connection's own known-hosts file, else in
 * `knownHostsFile`.
 */
export function serverTarget(
  connection: SavedConnection,
  clock: AppClock,
  knownHostsFile: string | undefined,
): { address: ServerAddress; tunnel: SshTunnel | undefined } {
  const address = 'url' in connection ? parseServerUrl(connection.url) : undefined;
  if (!address || !('url' in connection)) throw new DriverFailure('not_connected', `connection "${connection.id}" has no usable URL`);
  const hostKeys = connection.ssh && (connection.ssh.knownHostsFile ?? knownHostsFile);
  if (connection.ssh && !hostKeys) throw new DriverFailure('not_connected', `connection "${connection.id}" has no known-hosts file to check its SSH host key in`);
  const tunnel =
    connection.ssh &&
    new SshTunnel({
      connectionId: connection.id,
      ssh: connection.ssh,
      target: { host: address.host, port: address.port },
      knownHostsFile: hostKeys as string,
      clock,
    });
  return { address, tunnel };
}
