import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { StdioBridge } from '../bridge/stdioBridge.js';
import { Upstream } from '../bridge/upstream.js';
import { ErrorCode } from '../core/errors.js';
import { dataDirOption, supportDirOf } from './dataDirOption.js';
import { UsageError } from './usageError.js';

/**
 * `sluice bridge`: MCP over stdio (one JSON-RPC message per line) for clients that launch their servers,
 * forwarded to the running application. Only protocol messages reach stdout; diagnostics go to stderr.
 */
export async function bridge(argv: string[]): Promise<void> {
  const { positionals } = parseArgs({ args: argv, options: dataDirOption, strict: true, allowPositionals: true });
  if (positionals.length > 0) throw new UsageError('usage: sluice bridge [--data-dir DIR]');
  const upstream = new Upstream(supportDirOf(argv), process.env.SLUICE_TOKEN || undefined);
  await upstream.connect();

  const write = (message: object) => process.stdout.write(`${JSON.stringify(message)}\n`);
  const stdio = new StdioBridge(upstream, write);
  const input = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  input.on('line', (line) => {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      write({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.ParseError, message: 'Parse error: a line is not JSON' } });
      return;
    }
    stdio.receive(message);
  });
  await new Promise<void>((resolve) => {
    input.once('close', resolve);
    process.stdout.once('error', resolve);
  });
  // The client went away: aborting its requests closes their connections, which stops their work.
  stdio.close();
  process.exit(0);
}
