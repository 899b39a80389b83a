import { parseArgs } from 'node:util';
import { callControl } from './controlClient.js';
import { dataDirOption, supportDirOf } from './dataDirOption.js';
import { UsageError } from './usageError.js';

/** `sluice server on|off|status`: the console's MCP server switch; while off, `/mcp` answers `-33006`. */
export async function serverSwitch(argv: string[]): Promise<void> {
  const { positionals } = parseArgs({ args: argv, options: dataDirOption, strict: true, allowPositionals: true });
  const [action] = positionals;
  if (positionals.length !== 1 || !['on', 'off', 'status'].includes(action as string)) {
    throw new UsageError('usage: sluice server on|off|status');
  }
  const dir = supportDirOf(argv);
  const { enabled } = (await (action === 'status'
    ? callControl(dir, 'server.status')
    : callControl(dir, 'server.setEnabled', { enabled: action === 'on' }))) as { enabled: boolean };
  process.stdout.write(`MCP server ${enabled ? 'on' : 'off'}\n`);
}
