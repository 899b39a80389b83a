import { parseArgs } from 'node:util';
import { ENGINE_NAMES } from '../db/database.js';
import { changesTableLines, CHANGES_LEGEND, destinationText, effectText, numberedLines, placeholderOf, rowsTableLines, undoText, valueText, valueType } from '../core/shared/statementText.js';
import { visibleLinesText, visibleText } from '../core/shared/visibleText.js';
import type { ConsentDialog } from '../runtime/consentDialogs.js';
import type { ApprovalSheet, Refusal } from '../runtime/pairingService.js';
import { callControl } from './controlClient.js';
import { dataDirOption, supportDirOf } from './dataDirOption.js';
import { grantFromOptions } from './grantOptions.js';
import { UsageError } from './usageError.js';
import { terminalJson } from './terminalJson.js';

const expiryText = (days: number | null) => (days === null ? 'never' : `${days} d`);

/** A dialog as the console shows it, every invisible or control character escaped (the terminal's too). */
function describeDialog(dialog: ConsentDialog): string {
  const client = `${visibleText(dialog.clientName)} ${dialog.clientNameDeclared ? '(self-declared)' : '(no name declared: the token’s)'}`;
  const engine = ENGINE_NAMES[dialog.engine as keyof typeof ENGINE_NAMES] ?? dialog.engine;
  const lines = numberedLines(dialog.statement);
  return [
    `${dialog.id}  ${dialog.statementKind} statement  ${client} on ${visibleText(dialog.connectionName)} (${dialog.tool})`,
    `    why:           ${visibleText(dialog.statementReason)}`,
    `    token:         ${visibleText(dialog.tokenName)} (${dialog.tokenLevel})`,
    `    database:      ${engine} ${visibleText(dialog.database)}`,
    ...(dialog.destination ? [`    writes to:     ${destinationText(dialog.destination)}`] : []),
    ...(dialog.rows
      ? [`    rows to insert into ${visibleText(dialog.rows.table)} (${dialog.rows.total}):`, ...rowsTableLines(dialog.rows).map((line) => `      ${line}`)]
      : []),
    `    statement:     ${lines.length} ${lines.length === 1 ? 'line' : 'lines'}`,
    ...lines.map((line) => `      ${line}`),
    // An insert's bound values are its rows' cells, shown as the table above.
    ...(dialog.rows ? [] : dialog.params.map((value, i) => `    ${`${placeholderOf(dialog.placeholders, i)}:`.padEnd(15)}${valueType(value)} ${valueText(value)}`)),
    ...(dialog.effect ? [`    rows:          ${effectText(dialog.effect)}`] : []),
    ...(dialog.effect && 'changes' in dialog.effect ? [`    ${CHANGES_LEGEND}:`, ...changesTableLines(dialog.effect).map((line) => `      ${line}`)] : []),
    ...(dialog.undo ? [`    undo:          ${undoText(dialog.undo)}`] : []),
    `    waiting:       ${dialog.waitingSeconds} s`,
  ].join('\n');
}

const connectionsText = (connections: 'all' | string[]) => (connections === 'all' ? 'all' : visibleText(connections.join(', ')));

function describeEnded(sheet: ApprovalSheet): string {
  const { granted } = sheet;
  return [
    `${sheet.id}  pairing  ${visibleText(sheet.clientName)}  ${sheet.status}`,
    `    asked for:     ${sheet.requestedLevel}`,
    ...(granted
      ? [
        `    granted:       ${granted.level}, connections ${connectionsText(granted.connections)}${granted.tools ? `, only the tools ${visibleText(granted.tools.join(', '))}` : ''}, expires ${expiryText(granted.expiresInDays)}`,
        `    token:         ${granted.tokenId}`,
      ]
      : []),
  ].join('\n');
}

function describe(item: ApprovalSheet | ConsentDialog): string {
  if (item.kind === 'statement') return describeDialog(item);
  const sheet = item;
  if (sheet.status !== 'awaitingApproval') return describeEnded(sheet);
  return [
    `${sheet.id}  pairing  ${visibleText(sheet.clientName)}`,
    `    code goes to:  ${visibleText(sheet.redirect)}`,
    `    asks for:      ${sheet.requestedLevel} (choose ${sheet.levels.join(' | ')})`,
    `    connections:   all, or a subset of ${visibleText(sheet.connections.map((c) => c.id).join(', ')) || '(none saved)'}`,
    ...(sheet.tools.length > 0 ? [`    tools:         every tool the level allows, or only some of ${visibleText(sheet.tools.join(', '))} (--tools)`] : []),
    `    expires:       ${sheet.expiryChoices.map(expiryText).join(' | ')} (default ${expiryText(sheet.defaultExpiryDays)})`,
    `    time left:     ${sheet.secondsLeft} s`,
  ].join('\n');
}

/**
 * `sluice approvals [--json] [--all]`: the approval sheets and confirmation dialogs waiting for an
 * answer; `--all` adds the sheets that ended in the last ten minutes, with what each granted.
 */
export async function approvals(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...dataDirOption, json: { type: 'boolean' }, all: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new UsageError('usage: sluice approvals [--json] [--all]');
  const sheets = (await callControl(supportDirOf(argv), 'approvals.list', { all: values.all === true })) as (ApprovalSheet | ConsentDialog)[];
  if (values.json) process.stdout.write(terminalJson(sheets));
  else process.stdout.write(sheets.length ? `${sheets.map(describe).join('\n\n')}\n` : 'nothing is waiting for approval\n');
}

function report(result: { ok: true } | Refusal, done: string): void {
  if (result.ok) process.stdout.write(`${done}\n`);
  else {
    process.stderr.write(`sluice: ${visibleLinesText(result.reason)}\n`);
    process.exitCode = 1;
  }
}

/** `sluice approve ID [--level L] [--connections all|ID,ID] [--expires never|1|7|30|90] [--tools NAME,NAME]`: Approve on a sheet or dialog. */
export async function approve(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...dataDirOption, level: { type: 'string' }, connections: { type: 'string' }, expires: { type: 'string' }, tools: { type: 'string' } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new UsageError('usage: sluice approve ID [--level L] [--connections all|ID,ID] [--expires D] [--tools NAME,NAME]');
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
