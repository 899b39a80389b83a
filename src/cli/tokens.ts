import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveSupportDir } from '../platform/supportDir.js';
import {
  TOKENS_FILE,
  TokenStore,
  withoutSecrets,
  type MintOptions,
  type PublicTokenRecord,
  type TokenRecord,
} from '../auth/tokenStore.js';
import { grantFromOptions } from './grantOptions.js';
import { offlineSecretHome } from './offlineSecrets.js';
import { textTable } from './textTable.js';
import { checkedNameOption } from './nameOption.js';
import { UsageError } from './usageError.js';
import { terminalJson } from './terminalJson.js';

/** Calls the running application, which owns the token file while it runs. */
export type Remote = (method: string, params: Record<string, unknown>) => Promise<unknown>;

const USAGE =
  'usage: sluice tokens create --name NAME [--level readOnly|readWrite|fullAccess] ' +
  '[--connections all|ID,ID] [--expires never|1|7|30|90] | tokens list [--json] | tokens revoke ID';

function openStore(dataDir: string | undefined): TokenStore {
  const dir = resolveSupportDir(dataDir);
  return TokenStore.open(join(dir, TOKENS_FILE), offlineSecretHome(dir));
}

function mintInFile(dataDir: string | undefined, request: Omit<MintOptions, 'now'>): string {
  mkdirSync(resolveSupportDir(dataDir), { recursive: true, mode: 0o700 });
  return openStore(dataDir).mint({ ...request, now: Date.now() }).plaintext;
}

async function create(argv: string[], remote: Remote | undefined): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      name: { type: 'string' },
      level: { type: 'string', default: 'readOnly' },
      connections: { type: 'string', default: 'all' },
      expires: { type: 'string', default: 'never' },
      tools: { type: 'string' },
      'data-dir': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (!values.name) throw new UsageError('tokens create needs --name NAME');
  const grant = grantFromOptions(values);
  const request = {
    name: checkedNameOption(values.name),
    level: grant.level ?? 'readOnly',
    connections: grant.connections ?? 'all',
    expiresInDays: grant.expiresInDays ?? null,
    ...(grant.tools ? { tools: grant.tools } : {}),
  };

  const plaintext = remote
    ? ((await remote('tokens.create', request)) as { plaintext?: unknown } | null)?.plaintext
    : mintInFile(values['data-dir'], request);
  if (typeof plaintext !== 'string') throw new Error('the running application returned no token');
  process.stdout.write(`${plaintext}\n`);
}

const shortTime = (time: string) => `${time.slice(0, 10)} ${time.slice(11, 16)}Z`;

function table(records: PublicTokenRecord[]): string {
  return textTable([
    ['ID', 'NAME', 'PREFIX', 'LEVEL', 'CONNECTIONS', 'TOOLS', 'CREATED', 'LAST USED', 'EXPIRES', 'REVOKED'],
    ...records.map((r) => [
      r.id,
      r.name,
      r.prefix,
      r.level,
      r.connections === 'all' ? 'all' : r.connections.join(','),
      r.tools ? r.tools.join(',') : 'all',
      shortTime(r.createdAt),
      r.lastUsedAt ? shortTime(r.lastUsedAt) : '-',
      r.expiresAt ? shortTime(r.expiresAt) : 'never',
      r.revokedAt ? shortTime(r.revokedAt) : '-',
    ]),
  ]);
}

async function list(argv: string[], remote: Remote | undefined): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean' }, 'data-dir': { type: 'string' } },
    strict: true,
    allowPositionals: false,
  });
  const records = remote ? await remote('tokens.list', {}) : openStore(values['data-dir']).list();
  if (!Array.isArray(records)) throw new Error('the running application returned no token list');
  // Filtered here too, so that no salt or hash is printed whatever the application sends.
  const shown = (records as TokenRecord[]).map(withoutSecrets);
  process.stdout.write(values.json ? terminalJson(shown) : `${table(shown)}\n`);
}

async function revoke(argv: string[], remote: Remote | undefined): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { 'data-dir': { type: 'string' } },
    strict: true,
    allowPositionals: true,
  });
  const [id, ...extra] = positionals;
  if (id === undefined || extra.length > 0) throw new UsageError('tokens revoke needs exactly one token ID');
  const revoked = remote
    ? await remote('tokens.revoke', { id })
    : openStore(values['data-dir']).revoke(id, Date.now());
  if (revoked === null || revoked === undefined) throw new Error(`no token with id "${id}"`);
  process.stdout.write(`revoked ${id}\n`);
}

const subcommands = new Map([
  ['create', create],
  ['list', list],
  ['revoke', revoke],
]);

/** `sluice tokens create|list|revoke`: through the running application when `remote` is given, else on the file. */
export async function tokens(argv: string[], deps: { remote?: Remote } = {}): Promise<void> {
  const [name, ...rest] = argv;
  const subcommand = name === undefined ? undefined : subcommands.get(name);
  if (!subcommand) throw new UsageError(name === undefined ? USAGE : `unknown tokens command "${name}" (${USAGE})`);
  await subcommand(rest, deps.remote);
}
