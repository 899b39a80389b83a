import { UNDO } from '../core/contract.js';
import { ENGINE_NAMES, type Database, type ReadOptions } from '../db/database.js';
import type { KeepPlan } from '../db/keptWrites.js';
import type { EffectPreview, UndoOutlook } from '../runtime/consentDialogs.js';
import { tokenize } from '../sql/tokens.js';
import { assignedColumns, namesColumn } from '../sql/updatedColumns.js';
import { type OneTableWrite, verbOf, type WriteAnalysis, type WriteStatement } from './writeAnalysis.js';

/** Whether approved writes keep their rows (the `undo` setting), and the bounds of what one write keeps. */
export type UndoSettings = { enabled: boolean; maxRows: number; maxBytes: number };
export const UNDO_ON: UndoSettings = { enabled: true, maxRows: UNDO.maxRows, maxBytes: UNDO.maxBytes };

const rowsText = (n: number) => `${n} ${n === 1 ? 'row' : 'rows'}`;

/** Why a write of one table cannot be taken back by its key, judged from the statement and its table alone; undefined when it can. */
function whyNotByKey(write: OneTableWrite, statement: WriteStatement, db: Database): string | undefined {
  const { table, keys, escapes, verb } = write;
  // An INSERT's own RETURNING was refused by the analysis already (insertTried).
  if (verb !== 'INSERT' && tokenize(statement.sql, db.engine).some((t) => t.kind === 'word' && t.text === 'RETURNING')) return 'it has a RETURNING clause of its own';
  if (keys.length === 0) return `${table.name} has no primary key or unique key of columns never null, to match its rows by`;
  if (escapes.notPlain) return `${table.name} is ${escapes.notPlain}`;
  if (escapes.triggers) return `${table.name} has triggers, whose effects an undo could not take back`;
  if (escapes.cascades) return `foreign keys of other tables cascade from ${table.name}, so the write or its undo would change more than one table`;
  if (verb !== 'UPDATE') return undefined;
  const assigned = assignedColumns(statement.sql, db.engine);
  if (!assigned) return 'its SET list could not be read, to see which columns it changes';
  const changedKeys = keys.filter((key) => assigned.some((column) => namesColumn(column, key)));
  return changedKeys.length > 0 ? `it changes key columns (${changedKeys.join(', ')}), which its rows are matched by` : undefined;
}

/** The rows the dialog counted: the tried write's whole count, else the estimate; undefined when neither is known. */
function rowsOf(effect: EffectPreview | undefined): number | undefined {
  return effect && effect.rows !== null ? effect.rows : undefined;
}

/**
 * Whether an approved write will be undoable, decided before anyone approves it, from the same analysis
 * as its exact effect: undo on, an engine that keeps writes, one plain INSERT, UPDATE or DELETE of one
 * table with a key, nothing that escapes to other tables, key columns left alone, and no more rows than
 * `settings.maxRows` (the exact effect's count, else the estimate).
 */
export async function undoOutlook(
  db: Database,
  statement: WriteStatement,
  analyse: () => Promise<WriteAnalysis>,
  effect: EffectPreview | undefined,
  settings: UndoSettings,
  signal: AbortSignal,
): Promise<UndoOutlook> {
  const no = (why: string): UndoOutlook => ({ possible: false, why });
  if (!settings.enabled) return no('undo is turned off (the "undo" setting)');
  if (!db.keepWrite) return no(`${ENGINE_NAMES[db.engine]} connections cannot keep a write's rows`);
  const verb = verbOf(statement.sql, db);
  if (verb === 'WITH' || verb === 'MERGE' || verb === 'REPLACE') return no(`a statement starting with ${verb} may write more than one table`);
  if (verb !== 'INSERT' && verb !== 'UPDATE' && verb !== 'DELETE') return no('only an INSERT, UPDATE or DELETE of one table can be undone');
  const analysis = await analyse();
  if ('notOneTable' in analysis) return no(`it is not one plain INSERT, UPDATE or DELETE of one table (${analysis.notOneTable})`);
  const why = whyNotByKey(analysis, statement, db) ?? (await db.whyNotKept?.(analysis.verb, signal));
  if (why) return no(why);
  const rows = rowsOf(effect);
  if (rows !== undefined && rows > settings.maxRows) return no(`it changes ${rowsText(rows)}, more than the ${rowsText(settings.maxRows)} an undo keeps`);
  return { possible: true };
}

/** The approved write as `Database.keepWrite` runs it: the analysis's table, key and row selection, within the bounds of `settings`, its answer within `write`'s options. */
export function keepPlanOf(write: OneTableWrite, statement: WriteStatement, settings: UndoSettings, options: Pick<ReadOptions, 'maxRows' | 'maxBytes' | 'timeoutMs' | 'signal'>): KeepPlan {
  const { table } = write;
  const { timeoutMs, signal } = options;
  return {
    verb: write.verb,
    sql: statement.sql,
    params: statement.params,
    table: { schema: table.schema, name: table.name, target: write.target, keys: write.keys, columns: table.columns },
    ...(write.selection ? { selection: write.selection } : {}),
    maxRows: settings.maxRows,
    maxBytes: settings.maxBytes,
    answer: { maxRows: options.maxRows, ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }) },
    timeoutMs,
    signal,
  };
}
