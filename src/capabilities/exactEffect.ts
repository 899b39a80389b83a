import { DATABASES } from '../core/contract.js';
import type { Database, TableDescription } from '../db/database.js';
import { DriverFailure } from '../db/driverFailure.js';
import { engineModule } from '../db/engines/registry.js';
import type { RehearsalPlan, Rehearsed } from '../db/rehearsal.js';
import type { EffectPreview } from '../runtime/consentDialogs.js';
import type { RowSelection } from '../sql/countQuery.js';
import { escapingCall, insertTried, rowByKey, rowsBefore, selectedTable, type WrittenTable } from '../sql/rehearsalSql.js';
import { tokenize } from '../sql/tokens.js';
import { previewEffect } from './effectPreview.js';

type Statement = { sql: string; params: unknown[] };
type Verb = 'INSERT' | 'UPDATE' | 'DELETE';
/** How the write is tried, or why it is not. */
type Trial = { verb: Verb; plan: RehearsalPlan } | { notTried: string };

const TRIED_VERBS = new Set(['INSERT', 'UPDATE', 'DELETE', 'WITH', 'MERGE', 'REPLACE']);
const seconds = (ms: number) => `${ms / 1000} s`;

/** The key that pairs a row before and after: the primary key, else the first unique index of columns that are never null. */
function keyOf(table: TableDescription): string[] {
  if (table.primary_key.length > 0) return table.primary_key;
  const notNull = new Set(table.columns.filter((c) => !c.nullable).map((c) => c.name));
  return table.indexes.find((index) => index.unique && index.columns.every((c) => notNull.has(c)))?.columns ?? [];
}

/** Why trying a write to `table` would let something escape its transaction, or undefined. */
async function escapeOf(db: Database, table: TableDescription, verb: Verb, signal: AbortSignal): Promise<string | undefined> {
  const escapes = await engineModule(db.engine).effects.tableEscapes(db, table, signal);
  if (escapes.notPlain) return `${table.name} is ${escapes.notPlain}`;
  if (escapes.triggers) return `${table.name} has triggers, whose effects Sluice cannot see`;
  if (verb !== 'INSERT' && escapes.cascades) return `foreign keys of other tables cascade from ${table.name}, so it would change more than one table`;
  if (verb === 'INSERT' && escapes.sequence) return `an INSERT into ${table.name} draws from a sequence, which a rollback does not take back`;
  return undefined;
}

/** The table a write names, described; undefined when it is not found. */
function describe(db: Database, table: WrittenTable, signal: AbortSignal): Promise<TableDescription | undefined> {
  return db.describeTable(table.schema ?? db.defaultSchema(), table.name, signal);
}

/** How an UPDATE or DELETE is tried: its rows before, in key order, then (an UPDATE) each of them after, by key. */
function changePlan(selection: RowSelection, table: TableDescription, target: string, verb: Verb, statement: Statement, db: Database, limits: TrialLimits) {
  const { dialect } = engineModule(db.engine);
  const keys = keyOf(table);
  if (verb === 'UPDATE' && keys.length === 0) return { notTried: `${table.name} has no primary key or unique key of columns never null, to pair its rows before and after` };
  const names = table.columns.map((c) => c.name);
  return {
    verb,
    plan: {
      ...limits,
      statement,
      shown: DATABASES.rehearsalRowsShown,
      before: { sql: rowsBefore(selection, keys, dialect), params: selection.params },
      ...(verb === 'UPDATE' ? { after: { sql: rowByKey(target, keys, dialect), keys: keys.map((k) => names.indexOf(k)) } } : {}),
    },
  };
}

/** How long the try may take, and wait for a lock: the contract's, or (tests) shorter. */
export type TrialLimits = { budgetMs: number; lockWaitMs: number };
const CONTRACT_LIMITS: TrialLimits = { budgetMs: DATABASES.rehearsalBudgetMs, lockWaitMs: DATABASES.rehearsalLockWaitMs };

/** How the write is tried, once nothing it calls and nothing about its table would escape the transaction. */
async function trialOf(db: Database, statement: Statement, signal: AbortSignal, limits: TrialLimits): Promise<Trial> {
  const verb = tokenize(statement.sql, db.engine).find((t) => t.kind === 'word')?.text;
  if (verb === 'WITH' || verb === 'MERGE' || verb === 'REPLACE') return { notTried: `a statement starting with ${verb} is not tried (it may write more than one table)` };
  const call = escapingCall(statement.sql, db.engine);
  if (call) return { notTried: `it calls ${call}(), whose effect a rollback does not take back or differs on each run` };
  if (verb === 'INSERT') {
    const insert = insertTried(statement.sql, db.engine);
    if ('refused' in insert) return { notTried: insert.refused };
    const table = await describe(db, insert.table, signal);
    const escape = table ? await escapeOf(db, table, verb, signal) : 'its table was not found';
    return escape ? { notTried: escape } : { verb, plan: { ...limits, statement: { sql: insert.sql, params: statement.params }, shown: DATABASES.rehearsalRowsShown } };
  }
  const selection = await engineModule(db.engine).effects.rowSelection(statement.sql, statement.params).catch(() => ({ refused: 'the statement could not be read' }));
  if ('refused' in selection) return { notTried: selection.refused };
  const written = selectedTable(selection, db.engine);
  const table = written && (await describe(db, written, signal));
  if (!written || !table) return { notTried: 'its table was not found' };
  const escape = await escapeOf(db, table, verb as Verb, signal);
  return escape ? { notTried: escape } : changePlan(selection, table, written.target, verb as Verb, statement, db, limits);
}

/** The changed rows in the dialog's shape: before and after, paired by key (an UPDATE), or one side alone. */
function exact(verb: Verb, rehearsed: Extract<Rehearsed, { ran: true }>): EffectPreview {
  const changes =
    verb === 'INSERT'
      ? rehearsed.returned.map((after) => ({ before: null, after }))
      : rehearsed.before.map((before, i) => ({ before, after: verb === 'UPDATE' ? (rehearsed.after[i] ?? null) : null }));
  return { rows: rehearsed.rowsAffected, basis: 'exact', columns: rehearsed.columns, changes };
}

/**
 * What a write would change, shown before anyone consents to it. An INSERT, UPDATE or DELETE of one
 * table is tried on a write session in a transaction that is rolled back (`Database.rehearse`, within
 * `DATABASES.rehearsalBudgetMs` and a lock wait of `rehearsalLockWaitMs`): the rows it changed, before
 * and after, the first `rehearsalRowsShown` of them. What could escape the transaction or reach another
 * table is not tried: then today's estimate (`previewEffect`), saying why it is not exact. The approved
 * statement runs afresh: nothing of the try is kept or reused.
 */
export async function exactEffect(
  db: Database,
  statement: Statement,
  signal: AbortSignal,
  limits: TrialLimits = CONTRACT_LIMITS,
): Promise<EffectPreview | undefined> {
  const verb = tokenize(statement.sql, db.engine).find((t) => t.kind === 'word')?.text ?? '';
  if (!TRIED_VERBS.has(verb)) return previewEffect(db, statement, signal);
  // Reading the table's catalogue can fail too (a privilege, a lost session): the estimate then, saying so.
  const trial = await trialOf(db, statement, signal, limits).catch((error: unknown): Trial => {
    signal.throwIfAborted();
    if (error instanceof DriverFailure) return { notTried: `reading its table's catalogue failed: ${error.message}` };
    throw error;
  });
  let why: string;
  if ('notTried' in trial) why = trial.notTried;
  else {
    const rehearsed = await db.rehearse(trial.plan, signal).catch((error: unknown) => {
      signal.throwIfAborted();
      if (error instanceof DriverFailure) return { ran: false as const, failed: error.message };
      throw error;
    });
    if (rehearsed.ran) return exact(trial.verb, rehearsed);
    why =
      'failed' in rehearsed
        ? `trying it failed: ${rehearsed.failed}`
        : rehearsed.stopped === 'time'
          ? `trying it took over ${seconds(trial.plan.budgetMs)}`
          : 'another session holds a lock it needs';
  }
  const estimate = await previewEffect(db, statement, signal);
  return estimate ? { ...estimate, notExact: why } : { rows: null, reason: why };
}
