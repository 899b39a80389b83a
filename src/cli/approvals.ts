import { parseArgs } from 'node:util';
import type { ConsentDialog } from '../runtime/consentDialogs.js';
import type { ApprovalSheet, Refusal } from '../runtime/pairingService.js';
import { callControl } from './controlClient.js';
import { dataDirOption, supportDirOf } from './dataDirOption.js';
import { grantFromOptions } from './grantOptions.js';
import { UsageError } from './usageError.js';

const expiryText = (days: number | null) => (days === null ? 'never' : `${days} d`);

function describeDialog(dialog: ConsentDialog): string {
  return [
    `${dialog.id}  ${dialog.statementKind} statement  ${dialog.clientName} on ${dialog.connectionName} (${dialog.tool})`,
    ...dialog.statement.split('\n').map((line) => `    | ${line}`),
    `    waiting:       ${dialog.waitingSeconds} s`,
  ].join('\n');
}

function describe(item: ApprovalSheet | ConsentDialog): string {
  if (item.kind === 'statement') return describeDialog(item);
  const sheet = item;
  return [
    `${sheet.id}  pairing  ${sheet.clientName}`,
    `    code goes to:  ${sheet.redirect}`,
    `    asks for:      ${sheet.requestedLevel} (choose ${sheet.levels.join(' | ')})`,
    `    connections:   all, or a subset of ${sheet.connections.map((c) => c.id).join(', ') || '(none saved)'}`,
    `    expires:       ${sheet.expiryChoices.map(expiryText).join(' | ')} (default ${expiryText(sheet.defaultExpiryDays)})`,
    `    time left:     ${sheet.secondsLeft} s`,
  ].join('\n');
}

/** `sluice approvals [--json]`: the approval sheets and confirmation dialogs waiting for an answer. */
export async function approvals(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...dataDirOption, json: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new UsageError('usage: sluice approvals [--json]');
  const sheets = (await callControl(supportDirOf(argv), 'approvals.list')) as (ApprovalSheet | ConsentDialog)[];
  if (values.json) process.stdout.write(`${JSON.stringify(sheets, null, 2)}\n`);
  else process.stdout.write(sheets.length ? `${sheets.map(describe).join('\n\n')}\n` : 'nothing is waiting for approval\n');
}

function report(result: { ok: true } | Refusal, done: string): void {
  if (result.ok) process.stdout.write(`${done}\n`);
  else {
    process.stderr.write(`sluice: ${result.reason}\n`);
    process.exitCode = 1;
  }
}

/** `sluice approve ID [--level L] [--connections all|ID,ID] [--expires never|1|7|30|90]`: Approve on a sheet or dialog. */
export async function approve(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...dataDirOption, level: { type: 'string' }, connections: { type: 'string' }, expires: { type: 'string' } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new UsageError('usage: sluice approve ID [--level L] [--connections all|ID,ID] [--expires D]');
  const params: Record<string, unknown> = { id: positionals[0], ...grantFromOptions(values) };
  const result = (await callControl(supportDirOf(argv), 'approvals.approve', params)) as { ok: true; tokenId?: string } | Refusal;
  const done = result.ok && result.tokenId ? `: token ${result.tokenId} minted, the client has its code` : '';
  report(result, `approved ${params.id}${done}`);
}

/** `sluice deny ID`: the sheet's Deny. */
export async function deny(argv: string[]): Promise<void> {
  const { positionals } = parseArgs({ args: argv, options: dataDirOption, strict: true, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError('usage: sluice deny ID');
  const result = (await callControl(supportDirOf(argv), 'approvals.deny', { id: positionals[0] })) as { ok: true } | Refusal;
  report(result, `denied ${positionals[0]}`);
}
