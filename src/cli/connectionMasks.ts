import { parseArgs } from 'node:util';
import { type ColumnPolicy, MASK_ACTIONS, type MaskAction, patternRefusal } from '../db/connections/columnPolicy.js';
import { type PolicyChange, withPolicyChange } from '../db/connections/columnPolicyEdits.js';
import { ConfigError, type SavedConnection, writeConfig } from '../db/connections/savedConnections.js';
import { loadOrCreateConfig } from '../app/demo.js';
import type { ConnectionsTarget } from './connectionChanges.js';
import { callControl } from './controlClient.js';
import { dataDirOption } from './dataDirOption.js';
import { offlineSecretHome } from './offlineSecrets.js';
import { terminalJson } from './terminalJson.js';
import { textTable } from './textTable.js';
import { UsageError } from './usageError.js';

const USAGE = 'usage: sluice connections mask ID (--column PATTERN --action mask|hash|hide | --remove PATTERN | --exempt TOKEN_ID | --unexempt TOKEN_ID | --list [--json])';

const options = {
  ...dataDirOption,
  column: { type: 'string' },
  action: { type: 'string' },
  remove: { type: 'string' },
  exempt: { type: 'string' },
  unexempt: { type: 'string' },
  list: { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

type Values = { column?: string; action?: string; remove?: string; exempt?: string; unexempt?: string; list?: boolean };

/** The one change the flags ask for; any other mix is a usage error. */
function changeOf(values: Values): PolicyChange | undefined {
  const asked = [values.column !== undefined || values.action !== undefined, values.remove, values.exempt, values.unexempt, values.list].filter(Boolean).length;
  if (asked !== 1) throw new UsageError(USAGE);
  if (values.list) return undefined;
  for (const pattern of [values.column, values.remove]) {
    const refused = pattern === undefined ? undefined : patternRefusal(pattern);
    if (refused) throw new UsageError(refused);
  }
  if (values.column !== undefined) {
    if (!MASK_ACTIONS.includes(values.action as MaskAction)) throw new UsageError(`--action must be one of ${MASK_ACTIONS.join(', ')}`);
    return { rule: { pattern: values.column, action: values.action as MaskAction } };
  }
  if (values.action !== undefined) throw new UsageError('--action goes with --column PATTERN');
  if (values.remove !== undefined) return { remove: values.remove };
  return values.exempt !== undefined ? { exempt: values.exempt } : { unexempt: values.unexempt as string };
}

function policyText(policy: ColumnPolicy): string {
  const rules = textTable([['PATTERN', 'ACTION'], ...policy.rules.map((r) => [r.pattern, r.action])]);
  return `${rules}\nexempt tokens: ${policy.exemptTokens.length > 0 ? policy.exemptTokens.join(', ') : 'none'}\n`;
}

/**
 * `sluice connections mask ID …`: one change to a connection's private columns (issue 30), told to the
 * running application at once (in force for the next statement) or written to the config file; `--list`
 * shows the policy.
 */
export async function maskConnection(argv: string[], { dataDir, running }: ConnectionsTarget): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError(USAGE);
  const id = positionals[0] as string;
  const change = changeOf(values);
  let policy: ColumnPolicy;
  if (change === undefined) {
    const list = running ? ((await callControl(dataDir, 'connections.list')) as SavedConnection[]) : loadOrCreateConfig(dataDir, offlineSecretHome(dataDir)).connections;
    const connection = list.find((c) => c.id === id);
    if (!connection) throw new ConfigError(`no connection with id "${id}"`);
    policy = connection.columnPolicy ?? { rules: [], exemptTokens: [] };
  } else if (running) {
    policy = (await callControl(dataDir, 'connections.mask', { id, change })) as ColumnPolicy;
  } else {
    const secrets = offlineSecretHome(dataDir);
    const { connections } = loadOrCreateConfig(dataDir, secrets);
    const connection = withPolicyChange(connections, id, change);
    writeConfig(dataDir, { connections: connections.map((c) => (c.id === id ? connection : c)) }, secrets);
    policy = connection.columnPolicy ?? { rules: [], exemptTokens: [] };
  }
  process.stdout.write(values.json ? terminalJson(policy) : policyText(policy));
}
