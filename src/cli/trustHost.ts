import { parseArgs } from 'node:util';
import { loadOrCreateConfig } from '../app/demo.js';
import { systemClock } from '../core/clock.js';
import { visibleText } from '../core/shared/visibleText.js';
import { parseServerUrl } from '../db/connections/connectionUrl.js';
import { hasUrl, type SavedConnection } from '../db/connections/savedConnections.js';
import { sshPlaces, SshTunnel, type TrustedKey } from '../db/reach/sshTunnel.js';
import { callControl } from './controlClient.js';
import { dataDirOption } from './dataDirOption.js';
import { offlineSecretHome } from './offlineSecrets.js';
import { UsageError } from './usageError.js';

const USAGE = 'usage: sluice connections trust-host ID [--replace]';

const SAID: Record<TrustedKey['status'], string> = { known: 'already trusted', added: 'trusted', replaced: 'replaced the old key; trusted' };

/**
 * `sluice connections trust-host ID [--replace]`: connects through the connection's SSH hops once and
 * records in Sluice's `known_hosts` each host key no known-hosts file knows, printing its fingerprint; a
 * changed key only with `--replace`.
 */
export async function trustHost(argv: string[], { dataDir, running }: { dataDir: string; running: boolean }): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...dataDirOption, replace: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError(USAGE);
  const id = positionals[0]!;
  const saved = running
    ? ((await callControl(dataDir, 'connections.list')) as SavedConnection[])
    : loadOrCreateConfig(dataDir, offlineSecretHome(dataDir)).connections;
  const connection = saved.find((c) => c.id === id);
  if (!connection) throw new Error(`no connection with id "${id}"`);
  const address = hasUrl(connection) ? parseServerUrl(connection.url) : undefined;
  if (!hasUrl(connection) || !connection.ssh || !address) throw new Error(`connection "${id}" has no SSH tunnel`);
  const places = sshPlaces(dataDir);
  const tunnel = new SshTunnel({
    ...places,
    connectionId: id,
    ssh: connection.ssh,
    target: { host: address.host, port: address.port },
    knownHostsFile: connection.ssh.knownHostsFile ?? places.knownHostsFile,
    clock: systemClock,
  });
  await tunnel.trust(values.replace === true, (key) => process.stdout.write(`${SAID[key.status]} ${visibleText(key.host)} ${key.fingerprint}\n`));
}
