import { parseArgs } from 'node:util';
import type { UndoAnswer } from '../control/undoCommand.js';
import type { ExactValue } from '../db/keptWrites.js';
import { exactValueText } from '../core/shared/exactValueText.js';
import { visibleText } from '../core/shared/visibleText.js';
import { callControl } from './controlClient.js';
import { dataDirOption, supportDirOf } from './dataDirOption.js';
import { terminalJson } from './terminalJson.js';
import { textTable } from './textTable.js';
import { UsageError } from './usageError.js';

const USAGE = 'usage: sluice undo ACTIVITY-ID [--force] [--json]';

/** One kept value as the console's table shows it too (text quoted, bytes in hex, null); textTable escapes its invisible characters. */
const exactText = (value: ExactValue) => exactValueText(value).text;

const rowText = (row: ExactValue[] | null) => (row === null ? '(no row)' : row.map(exactText).join(', '));

/** The rows that stopped an undo: each one's key (`id=3`), how it is now, and how the write left it, every column in order. */
function differsTable(answer: Extract<UndoAnswer, { ok: false }>): string {
  const keyText = (key: ExactValue[]) => key.map((value, i) => `${answer.columns[answer.keys[i] ?? -1] ?? '?'}=${exactText(value)}`).join(', ');
  return [
    `columns: ${visibleText(answer.columns.join(', '))}`,
    textTable([['KEY', 'NOW', 'AS THE WRITE LEFT IT'], ...answer.differs.map((d) => [keyText(d.key), rowText(d.now), rowText(d.expected)])]),
  ].join('\n');
}

/**
 * `sluice undo ACTIVITY-ID [--force]`: takes back the write that activity row kept (the running
 * application does it: `activity.undo`). A row changed since stops it, nothing changes, and the rows
 * that differ are printed (exit 1); `--force` overwrites them.
 */
export async function undo(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...dataDirOption, force: { type: 'boolean' }, json: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  const [id] = positionals;
  if (positionals.length !== 1 || !/^[1-9][0-9]{0,15}$/.test(id as string)) throw new UsageError(USAGE);
  const seq = Number(id);
  const answer = (await callControl(supportDirOf(argv), 'activity.undo', { seq, force: values.force === true })) as UndoAnswer;
  if (!answer.ok) process.exitCode = 1;
  if (values.json) {
    process.stdout.write(terminalJson(answer));
    return;
  }
  if (answer.ok) {
    const rows = `${answer.rowsAffected} ${answer.rowsAffected === 1 ? 'row' : 'rows'}`;
    const again = answer.undoSeq === undefined ? '' : `; the undo is activity ${answer.undoSeq} (sluice undo ${answer.undoSeq} takes it back)`;
    process.stdout.write(`undid activity ${seq}: ${rows} put back${again}\n`);
    return;
  }
  const n = answer.differs.length;
  process.stdout.write(`${differsTable(answer)}\n`);
  process.stderr.write(
    `sluice: ${n} ${n === 1 ? 'row has' : 'rows have'} changed since activity ${seq}; nothing was undone (sluice undo ${seq} --force overwrites ${n === 1 ? 'it' : 'them'})\n`,
  );
}
