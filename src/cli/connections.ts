import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  aiPolicies,
  externalAccessLevels,
  newConnection,
  type SavedConnection,
  withoutPassword,
  writeConfig,
} from '../db/savedConnections.js';
import { loadOrCreateConfig } from '../app/demo.js';
import { parseServerUrl } from '../db/connectionUrl.js';
import { callControl, isRunning } from './controlClient.js';
import { dataDirOption, supportDirOf } from './dataDirOption.js';
import { offlineSecretHome } from './offlineSecrets.js';
import { UsageError } from './usageError.js';

const USAGE =
  'usage: sluice connections list [--json] | connections add --name NAME (--sqlite PATH | --url postgres://…|mysql://…) [--id ID] ' +
  `[--external-access ${externalAccessLevels.join('|')}] [--ai-policy ${aiPolicies.join('|')}]`;

function table(connections: SavedConnection[]): string {
  const rows = connections.map((c) => [c.id, c.name, c.engine, c.externalAccess, c.aiPolicy, c.engine === 'sqlite' ? c.path : c.url]);
  const all = [['ID', 'NAME', 'ENGINE', 'EXTERNAL ACCESS', 'AI POLICY', 'WHERE'], ...rows];
  const widths = all[0]!.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  return all.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

/** `sluice connections list|add`: saved connections; the running application is told at once. */
export async function connections(argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  const dataDir = supportDirOf(argv);
  const running = await isRunning(dataDir);
  if (action === 'list') {
    const { values } = parseArgs({ args: rest, options: { ...dataDirOption, json: { type: 'boolean' } }, strict: true });
    const list = running
      ? ((await callControl(dataDir, 'connections.list')) as SavedConnection[])
      : loadOrCreateConfig(dataDir, offlineSecretHome(dataDir)).connections.map(withoutPassword);
    process.stdout.write(values.json ? `${JSON.stringify(list, null, 2)}\n` : `${table(list)}\n`);
    return;
  }
  if (action !== 'add') throw new UsageError(USAGE);
  const { values } = parseArgs({
    args: rest,
    options: {
      ...dataDirOption,
      name: { type: 'string' },
      id: { type: 'string' },
      sqlite: { type: 'string' },
      url: { type: 'string' },
      'external-access': { type: 'string', default: 'readOnly' },
      'ai-policy': { type: 'string', default: 'askEachTime' },
    },
    strict: true,
  });
  if (!values.name || (values.sqlite === undefined) === (values.url === undefined)) throw new UsageError(USAGE);
  if (values.url !== undefined && !parseServerUrl(values.url)) {
    throw new UsageError('--url must be postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE or mysql://… (mariadb://…)');
  }
  const candidate = {
    name: values.name,
    ...(values.id !== undefined ? { id: values.id } : {}),
    ...(values.url !== undefined ? { url: values.url } : { path: resolve(values.sqlite ?? '') }),
    externalAccess: values['external-access'],
    aiPolicy: values['ai-policy'],
  };
  let connection: SavedConnection;
  if (running) connection = (await callControl(dataDir, 'connections.add', candidate)) as SavedConnection;
  else {
    connection = newConnection(candidate);
    const secrets = offlineSecretHome(dataDir);
    const config = loadOrCreateConfig(dataDir, secrets);
    if (config.connections.some((c) => c.id === connection.id)) {
      throw new Error(`a connection with id "${connection.id}" exists already (choose another with --id)`);
    }
    writeConfig(dataDir, { connections: [...config.connections, connection] }, secrets);
  }
  process.stdout.write(`added ${connection.id}\n`);
}
