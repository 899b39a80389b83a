import { DATABASES } from '../core/contract.js';
import type { Database } from '../db/database.js';
import { DriverFailure } from '../db/driverFailure.js';
import { engineModule } from '../db/engines/registry.js';
import type { RehearsalPlan, Rehearsed } from '../db/rehearsal.js';
import type { EffectPreview } from '../runtime/consentDialogs.js';
import type { RowSelection } from '../sql/countQuery.js';
import { escapingCall, rowByKey, rowsBefore } from '../sql/rehearsalSql.js';
import { previewEffect } from './effectPreview.js';
import { analyseWrite, escapeOf, type OneTableWrite, verbOf, type WriteAnalysis, type WriteStatement, type WriteVerb } from './writeAnalysis.js';

type Verb = WriteVerb;
/** How the write is tried, or why it is not. */
type Trial = { verb: Verb; plan: RehearsalPlan } | { notTried: string };

export const TRIED_VERBS = new Set(['INSERT', 'UPDATE', 'DELETE', 'WITH', 'MERGE', 'REPLACE']);
const seconds = (ms: number) => `${ms / 1000} s`;

/** How an UPDATE or DELETE is tried: its rows before, in key order, then (an UPDATE) each of them after, by key. */
function changePlan(write: OneTableWrite, selection: RowSelection, statement: WriteStatement, db: Database, limits: TrialLimits): Trial {
  const { dialect } = engineModule(db.engine);
  const { table, keys, verb } = write;
  if (verb === 'UPDATE' && keys.length === 0) return { notTried: `${table.name} has no primary key or unique key of columns never null, to pair its rows before and after` };
  const names = table.columns.map((c) => c.name);
  return {
    verb,
    plan: {
      ...limits,
      statement,
      shown: DATABASES.rehearsalRowsShown,
      before: { sql: rowsBefore(selection, keys, dialect), params: selection.params },
      ...(verb === 'UPDATE' ? { after: { sql: rowByKey(write.target, keys, dialect), keys: keys.map((k) => names.indexOf(k)) } } : {}),
    },
  };
}

/** How long the try may take, and wait for a lock: the contract's, or (tests) shorter. */
export type TrialLimits = { budgetMs: number; lockWaitMs: number };
export const CONTRACT_LIMITS: TrialLimits = { budgetMs: DATABASES.rehearsalBudgetMs, lockWaitMs: DATABASES.rehearsalLockWaitMs };

/** How the write is tried, once nothing it calls and nothing about its table would escape the transaction. */
function trialOf(db: Database, statement: WriteStatement, analysis: WriteAnalysis, limits: TrialLimits): Trial {
  const verb = verbOf(statement.sql, db);
  if ('notOneTable' in analysis && (verb === 'WITH' || verb === 'MERGE' || verb === 'REPLACE')) return { notTried: analysis.notOneTable };
  const call = escapingCall(statement.sql, db.engine);
  if (call) return { notTried: `it calls ${call}(), whose effect a rollback does not take back or differs on each run` };
  if ('notOneTable' in analysis) return { notTried: analysis.notOneTable };
  const escape = escapeOf(analysis.table, analysis.verb, analysis.escapes);
  if (escape) return { notTried: escape };
  if (analysis.tried !== undefined) return { verb: analysis.verb, plan: { ...limits, statement: { sql: analysis.tried, params: statement.params }, shown: DATABASES.rehearsalRowsShown } };
  return changePlan(analysis, analysis.selection as RowSelection, statement, db, limits);
}

/** The analysis of a write, or (its table's catalogue could not be read: a privilege, a lost session) why not. */
export async function analysed(db: Database, statement: WriteStatement, signal: AbortSignal): Promise<WriteAnalysis> {
  return analyseWrite(db, statement, signal).catch((error: unknown): WriteAnalysis => {
    signal.throwIfAborted();
    if (error instanceof DriverFailure) return { notOneTable: `reading its table's catalogue failed: ${error.message}` };
    throw error;
  });
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
  statement: WriteStatement,
  signal: AbortSignal,
  limits: TrialLimits = CONTRACT_LIMITS,
): Promise<EffectPreview | undefined> {
  if (!TRIED_VERBS.has(verbOf(statement.sql, db))) return previewEffect(db, statement, signal);
  return exactEffectOf(db, statement, await analysed(db, statement, signal), signal, limits);
}

/** `exactEffect` of a write already analysed (writePreview.ts reads it once for the effect and the undo). */
export async function exactEffectOf(db: Database, statement: WriteStatement, analysis: WriteAnalysis, signal: AbortSignal, limits: TrialLimits): Promise<EffectPreview | undefined> {
  const trial = trialOf(db, statement, analysis, limits);
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
