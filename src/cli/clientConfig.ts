import { constants, copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { writeFileAtomic } from '../core/atomicFile.js';
import { currentUser } from '../platform/currentUser.js';
import { CLIENT_FORMATS, CLIENT_IDS, type ClientId, clientConfigPath, isClientId } from '../platform/clientConfigPaths.js';
import { dataDirOption } from './dataDirOption.js';
import { selfCommand } from './selfCommand.js';
import { UsageError } from './usageError.js';

const USAGE = `usage: sluice client-config <${CLIENT_IDS.join('|')}> [--write] [--data-dir DIR]`;
const SERVER_NAME = 'sluice';

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The client's entry for the stdio bridge. No token: the bridge reads its own from the handshake file. */
function bridgeEntry(client: ClientId, command: ReturnType<typeof selfCommand>): JsonObject {
  const args = [command.script, 'bridge', ...(command.dataDir ? ['--data-dir', command.dataDir] : [])];
  return CLIENT_FORMATS[client].typed ? { type: 'stdio', command: command.node, args } : { command: command.node, args };
}

/** Reads the client's file: absent is empty; anything but a JSON object (with an object of servers) is refused. */
function readConfig(file: string, serversKey: string): JsonObject | undefined {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message}); it was left untouched. Fix it (comments are not supported) and run this again.`, { cause: error });
  }
  if (!isObject(parsed)) throw new Error(`${file} does not hold a JSON object; it was left untouched.`);
  if (parsed[serversKey] !== undefined && !isObject(parsed[serversKey]))
    throw new Error(`"${serversKey}" in ${file} is not an object; it was left untouched.`);
  return parsed;
}

const backupStamp = (now: Date) => now.toISOString().replace(/[:.]/g, '-');

/** Merges Sluice's entry into the client's file: everything else kept, a backup first, an atomic write. */
function writeClientConfig(client: ClientId, linkOrFile: string, entry: JsonObject, now = new Date()): string {
  const { serversKey } = CLIENT_FORMATS[client];
  // A configuration kept as a symbolic link (dotfile managers) is updated where it really lives.
  const file = existsSync(linkOrFile) ? realpathSync(linkOrFile) : linkOrFile;
  const existing = readConfig(file, serversKey);
  const servers = isObject(existing?.[serversKey]) ? (existing[serversKey] as JsonObject) : {};
  if (isDeepStrictEqual(servers[SERVER_NAME], entry)) return `${file} already has this configuration; nothing changed.\n`;

  const merged = { ...existing, [serversKey]: { ...servers, [SERVER_NAME]: entry } };
  let backup = '';
  if (existing) {
    backup = `${file}.${backupStamp(now)}.bak`;
    copyFileSync(file, backup, constants.COPYFILE_EXCL);
  } else {
    mkdirSync(dirname(file), { recursive: true });
  }
  const mode = existing ? statSync(file).mode & 0o777 : 0o600;
  writeFileAtomic(file, `${JSON.stringify(merged, null, 2)}\n`, mode);
  return `Added "${SERVER_NAME}" to ${file}${backup ? ` (the previous file is in ${backup})` : ''}.\n`;
}

/** `sluice client-config CLIENT [--write]`: prints (or merges) the client's configuration for `sluice bridge`. */
export async function clientConfig(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...dataDirOption, write: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  const [client, ...extra] = positionals;
  if (client === undefined || extra.length > 0) throw new UsageError(USAGE);
  if (!isClientId(client)) throw new UsageError(`unknown client "${client}" (one of: ${CLIENT_IDS.join(', ')})`);

  const format = CLIENT_FORMATS[client];
  const entry = bridgeEntry(client, selfCommand(values['data-dir']));
  const file = clientConfigPath(client, process.platform, currentUser());

  if (!values.write) {
    process.stdout.write(`${JSON.stringify({ [format.serversKey]: { [SERVER_NAME]: entry } }, null, 2)}\n`);
    process.stderr.write(`# ${format.title}: merge this into ${file} (sluice client-config ${client} --write does it, with a backup)\n`);
    return;
  }
  process.stdout.write(writeClientConfig(client, file, entry));
  process.stdout.write(`${format.check} Sluice must be running (sluice serve, or sluice service install).\n`);
}
