import { parseArgs } from 'node:util';
import { visibleLinesText, visibleText } from '../core/shared/visibleText.js';
import type { ApprovalSheet, Refusal } from '../runtime/pairingService.js';
import { openConsoleInBrowser } from './consoleInBrowser.js';
import { NotRunning, callControl } from './controlClient.js';
import { dataDirOption, supportDirOf } from './dataDirOption.js';
import { startServer } from './startServer.js';
import { UsageError } from './usageError.js';

type Opened = { ok: true; sheet: ApprovalSheet } | Refusal;

/** Hands the link to the running application, starting one first when none runs (contract: "the HTTP server is started if not running"). */
async function handOver(dataDir: string, url: string): Promise<{ opened: Opened; started: boolean }> {
  try {
    return { opened: (await callControl(dataDir, 'pairing.openUrl', { url })) as Opened, started: false };
  } catch (error) {
    if (!(error instanceof NotRunning)) throw error;
  }
  await startServer(dataDir);
  return { opened: (await callControl(dataDir, 'pairing.openUrl', { url })) as Opened, started: true };
}

/**
 * `sluice open-url [--no-browser] URL`: what the OS runs for a `sluice://` link (see `sluice install`).
 * Hands the link to the running application, or starts it first, then brings the approval sheet up
 * in the browser (the console, signed in by its one-time link).
 */
export async function openUrl(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...dataDirOption, 'no-browser': { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new UsageError('usage: sluice open-url [--no-browser] URL');
  const dataDir = supportDirOf(argv);
  const { opened, started } = await handOver(dataDir, positionals[0] as string);
  if (started) process.stdout.write(`started Sluice (sluice serve --data-dir ${dataDir})\n`);
  if (!opened.ok) {
    process.stderr.write(`sluice: ${visibleLinesText(opened.reason)}\n`);
    process.exitCode = 1;
    return;
  }
  const { sheet } = opened;
  process.stdout.write(
    `${visibleText(sheet.clientName)} asks for ${sheet.requestedLevel} access; approval ${sheet.id} is waiting ` +
      `(${sheet.secondsLeft} s left): sluice approve ${sheet.id} | sluice deny ${sheet.id}\n`,
  );
  if (values['no-browser']) return;
  const page = await openConsoleInBrowser(dataDir);
  process.stdout.write(page ? 'the approval sheet is open in the console, in your browser\n' : 'Sluice runs without a console: answer with sluice approve or deny\n');
}
