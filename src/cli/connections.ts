import { parseArgs } from 'node:util';
import { hasUrl, newConnection, type SavedConnection, withoutPassword, writeConfig } from '../db/connections/savedConnections.js';
import { loadOrCreateConfig } from '../app/demo.js';
import { withAdded } from '../db/connections/connectionEdits.js';
import { probeConnection } from '../db/connections/connectionProbe.js';
import { sshPlaces } from '../db/reach/sshTunnel.js';
import { removeConnection, targetOf, testConnection, updateConnection, usageOf } from './connectionChanges.js';
import { maskConnection } from './connectionMasks.js';
import { callControl, isRunning } from './controlClient.js';
import { dataDirOption, supportDirOf } from './dataDirOption.js';
import { duckdbTargetOf } from './duckdbTarget.js';
import { offlineSecretHome } from './offlineSecrets.js';
import { sshFlagOptions, sshOf, withSshPassphrase } from './sshFlags.js';
import { textTable } from './textTable.js';
import { trustHost } from './trustHost.js';
import { checkedNameOption } from './nameOption.js';
import { UsageError } from './usageError.js';
import { terminalJson } from './terminalJson.js';

const USAGE = 'usage: sluice connections list|add|update|remove|test|mask (sluice connections --help shows each)';
const edits = { update: updateConnection, remove: removeConnection, test: testConnection };

function table(connections: SavedConnection[]): string {
  const rows = connections.map((c) => [c.id, c.name, c.engine, c.externalAccess, c.aiPolicy, hasUrl(c) ? c.url : c.path]);
  return textTable([['ID', 'NAME', 'ENGINE', 'EXTERNAL ACCESS', 'AI POLICY', 'WHERE'], ...rows]);
}

/** `sluice connections list|add|update|remove|test|mask`: saved connections; the running application is told at once. */
export async function connections(argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  const dataDir = supportDirOf(argv);
  const running = await isRunning(dataDir);
  if (action === 'list') {
    const { values } = parseArgs({ args: rest, options: { ...dataDirOption, json: { type: 'boolean' } }, strict: true });
    const list = running
      ? ((await callControl(dataDir, 'connections.list')) as SavedConnection[])
      : loadOrCreateConfig(dataDir, offlineSecretHome(dataDir)).connections.map(withoutPassword);
    process.stdout.write(values.json ? terminalJson(list) : `${table(list)}\n`);
    return;
  }
  if (action === 'update' || action === 'remove' || action === 'test') return edits[action](rest, { dataDir, running });
  if (action === 'trust-host') return trustHost(rest, { dataDir, running });
  if (action === 'mask') return maskConnection(rest, { dataDir, running });
  if (action !== 'add') throw new UsageError(USAGE);
  const { values } = parseArgs({
    args: rest,
    options: {
      ...dataDirOption,
      name: { type: 'string' },
      id: { type: 'string' },
      sqlite: { type: 'string' },
      url: { type: 'string' },
      duckdb: { type: 'string' },
      'files-dir': { type: 'string' },
      'external-access': { type: 'string', default: 'readOnly' },
      'ai-policy': { type: 'string', default: 'askEachTime' },
      'no-check': { type: 'boolean' },
      ...sshFlagOptions,
    },
    strict: true,
  });
  const targets = [values.sqlite, values.url, values.duckdb].filter((t) => t !== undefined).length;
  if (!values.name || targets !== 1) throw new UsageError(usageOf('connections add'));
  const check = values['no-check'] !== true;
  const candidate = await withSshPassphrase(values, {
    name: checkedNameOption(values.name),
    ...(values.id !== undefined ? { id: values.id } : {}),
    ...targetOf(values),
    ...duckdbTargetOf(values),
    ...sshOf(values),
    externalAccess: values['external-access'],
    aiPolicy: values['ai-policy'],
  });
  let connection: SavedConnection;
  if (running) connection = (await callControl(dataDir, 'connections.add', { ...candidate, check })) as SavedConnection;
  else {
    connection = newConnection(candidate);
    const secrets = offlineSecretHome(dataDir);
    const saved = withAdded(loadOrCreateConfig(dataDir, secrets).connections, connection);
    if (check) await probeConnection(connection, sshPlaces(dataDir));
    writeConfig(dataDir, { connections: saved }, secrets);
  }
  process.stdout.write(`added ${connection.id}\n`);
}
