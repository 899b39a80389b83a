import type { Database } from '../db/database.js';
import type { EffectPreview, UndoOutlook } from '../runtime/consentDialogs.js';
import { previewEffect } from './effectPreview.js';
import { analysed, CONTRACT_LIMITS, exactEffectOf, TRIED_VERBS, type TrialLimits } from './exactEffect.js';
import { undoOutlook, type UndoSettings } from './undoOutlook.js';
import { verbOf, type WriteAnalysis, type WriteStatement } from './writeAnalysis.js';

/**
 * What a write's dialog says before anyone consents: what it would change (exactEffect.ts) and whether
 * it can be undone once it ran (undoOutlook.ts), both from one analysis of the statement and its table.
 */
export async function writePreview(
  db: Database,
  statement: WriteStatement,
  signal: AbortSignal,
  settings: UndoSettings,
  limits: TrialLimits = CONTRACT_LIMITS,
): Promise<{ effect: EffectPreview | undefined; undo: UndoOutlook }> {
  let analysis: Promise<WriteAnalysis> | undefined;
  const analyse = () => (analysis ??= analysed(db, statement, signal));
  const effect = TRIED_VERBS.has(verbOf(statement.sql, db)) ? await exactEffectOf(db, statement, await analyse(), signal, limits) : await previewEffect(db, statement, signal);
  return { effect, undo: await undoOutlook(db, statement, analyse, effect, settings, signal) };
}
