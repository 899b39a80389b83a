import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { type ConnectionChanges, updatedConnection, withRemoved } from '../db/connections/connectionEdits.js';
import { probeConnection, type ProbeResult } from '../db/connections/connectionProbe.js';
import { ConfigError, type SavedConnection, writeConfig } from '../db/connections/savedConnections.js';
import { loadOrCreateConfig } from '../app/demo.js';
import { visibleText } from '../core/shared/visibleText.js';
import { parseServerUrl, type ServerAddress } from '../db/connections/connectionUrl.js';
import { sshPlaces } from '../db/reach/sshTunnel.js';
import { TlsSettingsError } from '../db/reach/tlsSettings.js';
import { callControl } from './controlClient.js';
import { COMMAND_USAGES } from './commandUsages.js';
import { dataDirOption } from './dataDirOption.js';
import { offlineSecretHome } from './offlineSecrets.js';
import { sshFlagOptions, sshOf, withSshPassphrase } from './sshFlags.js';
import { checkedNameOption } from './nameOption.js';
import { UsageError } from './usageError.js';

/** Where a command's change goes: the running application (at once), else the config file. */
export type ConnectionsTarget = { dataDir: string; running: boolean };

export const usageOf = (command: string) => {
  const usage = COMMAND_USAGES.find((u) => u.command === command)!;
  return `usage: sluice ${usage.command} ${usage.synopsis}`;
};

/** The URL's address; TLS parameters it cannot use are a usage error saying which. */
function serverUrl(url: string): ServerAddress | undefined {
  try {
    return parseServerUrl(url);
  } catch (error) {
    if (error instanceof TlsSettingsError) throw new UsageError(`--url: ${error.message}`);
    throw error;
  }
}

/** The `--sqlite PATH` / `--url URL` pair of add and update: at most one, the URL one Sluice can read. */
export function targetOf(values: { sqlite?: string; url?: string }): { path?: string; url?: string } {
  if (values.sqlite !== undefined && values.url !== undefined) throw new UsageError('give --sqlite PATH or --url URL, not both');
  if (values.url !== undefined && !serverUrl(values.url)) {
    throw new UsageError('--url must be postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE or mysql://… (mariadb://…)');
  }
  return values.sqlite !== undefined ? { path: resolve(values.sqlite) } : values.url !== undefined ? { url: values.url } : {};
}

/** The saved connections as the config file has them (passwords included), with its secret home. */
function offlineConfig(dataDir: string) {
  const secrets = offlineSecretHome(dataDir);
  return { secrets, connections: loadOrCreateConfig(dataDir, secrets).connections };
}

function onlyId(positionals: string[], command: string): string {
  if (positionals.length !== 1) throw new UsageError(usageOf(command));
  return positionals[0]!;
}

/** `sluice connections update ID …`: the changed connection is checked like a new one, then saved. */
export async function updateConnection(argv: string[], { dataDir, running }: ConnectionsTarget): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...dataDirOption,
      name: { type: 'string' },
      sqlite: { type: 'string' },
      url: { type: 'string' },
      'external-access': { type: 'string' },
      'ai-policy': { type: 'string' },
      'no-check': { type: 'boolean' },
      ...sshFlagOptions,
      'no-ssh': { type: 'boolean' },
    },
    strict: true,
    allowPositionals: true,
  });
  const id = onlyId(positionals, 'connections update');
  if (values['no-ssh'] && values.ssh !== undefined) throw new UsageError('give --ssh … or --no-ssh, not both');
  const given: ConnectionChanges = await withSshPassphrase(values, {
    name: checkedNameOption(values.name),
    ...targetOf(values),
    externalAccess: values['external-access'],
    aiPolicy: values['ai-policy'],
    ssh: values['no-ssh'] ? null : sshOf(values).ssh,
  });
  const changes = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as ConnectionChanges;
  if (Object.keys(changes).length === 0) {
    throw new UsageError('nothing to change: give --name, --sqlite, --url, --external-access, --ai-policy, --ssh … or --no-ssh');
  }
  const check = values['no-check'] !== true;
  if (running) await callControl(dataDir, 'connections.update', { id, ...changes, check });
  else {
    const { secrets, connections } = offlineConfig(dataDir);
    const connection = updatedConnection(connections, id, changes);
    if (check) await probeConnection(connection, sshPlaces(dataDir));
    writeConfig(dataDir, { connections: connections.map((c) => (c.id === id ? connection : c)) }, secrets);
  }
  process.stdout.write(`updated ${id}\n`);
}

async function confirmed(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(question)).trim());
  } finally {
    prompt.close();
  }
}

/** `sluice connections remove ID [--yes]`: asks in a terminal; elsewhere only `--yes` removes. */
export async function removeConnection(argv: string[], { dataDir, running }: ConnectionsTarget): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...dataDirOption, yes: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  const id = onlyId(positionals, 'connections remove');
  const list = running
    ? ((await callControl(dataDir, 'connections.list')) as SavedConnection[])
    : offlineConfig(dataDir).connections;
  const connection = list.find((c) => c.id === id);
  if (!connection) throw new ConfigError(`no connection with id "${id}"`);
  if (values.yes !== true) {
    if (!process.stdin.isTTY) throw new UsageError(`not removing "${id}": stdin is not a terminal to ask in; add --yes`);
    if (!(await confirmed(`Remove connection "${connection.name}" (${id})? [y/N] `))) {
      process.stdout.write(`kept ${id}\n`);
      return;
    }
  }
  if (running) await callControl(dataDir, 'connections.remove', { id });
  else {
    const { secrets, connections } = offlineConfig(dataDir);
    writeConfig(dataDir, { connections: withRemoved(connections, id) }, secrets);
  }
  process.stdout.write(`removed ${id}\n`);
}

/** `sluice connections test ID`: opens the connection, prints its server version, whether TLS is in use (servers) and how long that took. */
export async function testConnection(argv: string[], { dataDir, running }: ConnectionsTarget): Promise<void> {
  const { positionals } = parseArgs({ args: argv, options: dataDirOption, strict: true, allowPositionals: true });
  const id = onlyId(positionals, 'connections test');
  let result: ProbeResult;
  if (running) result = (await callControl(dataDir, 'connections.test', { id })) as ProbeResult;
  else {
    const connection = offlineConfig(dataDir).connections.find((c) => c.id === id);
    if (!connection) throw new ConfigError(`no connection with id "${id}"`);
    result = await probeConnection(connection, sshPlaces(dataDir));
  }
  process.stdout.write(`${id}: ${visibleText(result.version)}, ${result.tls ? `${visibleText(result.tls)}, ` : ''}${result.ms} ms\n`);
}
