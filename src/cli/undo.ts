import { parseArgs } from 'node:util';
import type { UndoAnswer } from '../control/undoCommand.js';
import type { ExactValue, RowDifference } from '../db/keptWrites.js';
import { exactValueText } from '../core/shared/exactValueText.js';
import { callControl } from './controlClient.js';
import { dataDirOption, supportDirOf } from './dataDirOption.js';
import { terminalJson } from './terminalJson.js';
import { textTable } from './textTable.js';
import { UsageError } from './usageError.js';

const USAGE = 'usage: sluice undo ACTIVITY-ID [--force] [--json]';

const rowText = (row: ExactValue[] | null) => (row === null ? '(no row)' : row.map((value) => exactValueText(value).text).join(', '));

/** The rows that stopped an undo: each one's key, how it is now, and how the write left it. */
const differsTable = (differs: RowDifference[]) =>
  textTable([['KEY', 'NOW', 'AS THE WRITE LEFT IT'], ...differs.map((d) => [rowText(d.key), rowText(d.now), rowText(d.expected)])]);

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
  process.stdout.write(`${differsTable(answer.differs)}\n`);
  process.stderr.write(
    `sluice: ${n} ${n === 1 ? 'row has' : 'rows have'} changed since activity ${seq}; nothing was undone (sluice undo ${seq} --force overwrites ${n === 1 ? 'it' : 'them'})\n`,
  );
}
