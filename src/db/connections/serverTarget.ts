import type { SavedConnection } from './savedConnections.js';
import { parseServerUrl, type ServerAddress } from './connectionUrl.js';
import { DriverFailure } from '../driverFailure.js';
import { type SshPlaces, SshTunnel } from '../reach/sshTunnel.js';
import type { AppClock } from '../../core/clock.js';

/**
 * Where a server connection's driver connects: the URL's address, through an SSH tunnel when the
 * connection has one. The tunnel records host keys in the connection's own known-hosts file, else in
 * Sluice's (`ssh`), and reads the user's OpenSSH files under `ssh.home`.
 */
export function serverTarget(
  connection: SavedConnection,
  clock: AppClock,
  ssh: SshPlaces | undefined,
): { address: ServerAddress; tunnel: SshTunnel | undefined } {
  const address = 'url' in connection ? parseServerUrl(connection.url) : undefined;
  if (!address || !('url' in connection)) throw new DriverFailure('not_connected', `connection "${connection.id}" has no usable URL`);
  if (!connection.ssh) return { address, tunnel: undefined };
  if (!ssh) throw new DriverFailure('not_connected', `connection "${connection.id}" has no known-hosts file to check its SSH host key in`);
  const tunnel = new SshTunnel({
    connectionId: connection.id,
    ssh: connection.ssh,
    target: { host: address.host, port: address.port },
    knownHostsFile: connection.ssh.knownHostsFile ?? ssh.knownHostsFile,
    home: ssh.home,
    clock,
  });
  return { address, tunnel };
}
