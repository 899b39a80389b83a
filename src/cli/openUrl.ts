import { parseArgs } from 'node:util';
import type { ApprovalSheet, Refusal } from '../runtime/pairingService.js';
import { callControl } from './controlClient.js';
import { dataDirOption, supportDirOf } from './dataDirOption.js';
import { UsageError } from './usageError.js';

/** `sluice open-url URL`: hands a `sluice://` deep link to the running application, as the OS would. */
export async function openUrl(argv: string[]): Promise<void> {
  const { positionals } = parseArgs({ args: argv, options: dataDirOption, strict: true, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError('usage: sluice open-url URL');
  const result = (await callControl(supportDirOf(argv), 'pairing.openUrl', { url: positionals[0] })) as
    | { ok: true; sheet: ApprovalSheet }
    | Refusal;
  if (!result.ok) {
    process.stderr.write(`sluice: ${result.reason}\n`);
    process.exitCode = 1;
    return;
  }
  const { sheet } = result;
  process.stdout.write(
    `${sheet.clientName} asks for ${sheet.requestedLevel} access; approval ${sheet.id} is waiting ` +
      `(${sheet.secondsLeft} s left): sluice approve ${sheet.id} | sluice deny ${sheet.id}\n`,
  );
}
