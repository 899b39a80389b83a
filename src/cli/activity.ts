import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  ACTIVITY_CATEGORIES,
  ACTIVITY_FILE,
  ActivityLog,
  type ActivityCategory,
  type ActivityRow,
} from '../activity/activityLog.js';
import { type UndoState, UndoStore, withUndoState } from '../activity/undoStore.js';
import { resolveSupportDir } from '../platform/supportDir.js';
import { textTable } from './textTable.js';
import { UsageError } from './usageError.js';
import { terminalJson } from './terminalJson.js';

type ShownRow = ActivityRow & { undo: UndoState };

const COLUMNS: [string, (row: ShownRow) => string | null][] = [
  ['TIME', (r) => r.time],
  ['CATEGORY', (r) => r.category],
  ['ACTION', (r) => r.action],
  ['OUTCOME', (r) => r.outcome],
  ['TOKEN', (r) => r.token_name],
  ['CLIENT', (r) => r.client_name],
  ['CONNECTION', (r) => r.connection_id],
  ['ERROR', (r) => r.error],
  // `available`: `sluice undo SEQ` takes the write back; `done`: it was.
  ['UNDO', (r) => r.undo],
  ['ID', (r) => String(r.seq)],
];

function parseLimit(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`--limit must be a positive number, not "${text}"`);
  return Number(text);
}

function parseCategory(text: string | undefined): ActivityCategory | undefined {
  if (text === undefined) return undefined;
  const category = ACTIVITY_CATEGORIES.find((c) => c === text);
  if (!category) throw new UsageError(`--category must be one of ${ACTIVITY_CATEGORIES.join(', ')}, not "${text}"`);
  return category;
}

const table = (rows: ShownRow[]): string =>
  textTable([COLUMNS.map(([title]) => title), ...rows.map((row) => COLUMNS.map(([, cell]) => cell(row) ?? '-'))]);

/** `sluice activity`: prints the activity log newest first, or checks its hash chain. */
export async function activity(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      json: { type: 'boolean' },
      limit: { type: 'string' },
      category: { type: 'string' },
      verify: { type: 'boolean' },
      'data-dir': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const limit = parseLimit(values.limit);
  const category = parseCategory(values.category);
  const dataDir = resolveSupportDir(values['data-dir']);
  const path = join(dataDir, ACTIVITY_FILE);
  if (!existsSync(path)) {
    // A listing asked for as JSON stays parseable.
    process.stdout.write(values.json && !values.verify ? '[]\n' : 'no activity yet\n');
    return;
  }

  const log = ActivityLog.open(path);
  try {
    if (values.verify) {
      const result = log.verify();
      process.stdout.write(result.ok ? `chain ok (${result.rows} rows)\n` : `chain broken at row ${result.brokenAt}\n`);
      if (!result.ok) process.exitCode = 1;
      return;
    }
    const undo = UndoStore.reader(dataDir);
    const rows = log.list({ limit, category }).map((row) => withUndoState(row, undo));
    if (values.json) process.stdout.write(terminalJson(rows));
    else if (rows.length) process.stdout.write(`${table(rows)}\n`);
    else process.stdout.write(category ? 'no matching activity\n' : 'no activity yet\n');
  } finally {
    log.close();
  }
}
