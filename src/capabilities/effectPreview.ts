import { DATABASES } from '../core/contract.js';
import { classifyStatement } from '../sql/classify.js';
import { type NotSelectable, type RowSelection, selectRows } from '../sql/countQuery.js';
import { type Database, valuesOf } from '../db/database.js';
import { DriverFailure } from '../db/driverFailure.js';
import { engineModule } from '../db/engines/registry.js';
import { tokenize } from '../sql/tokens.js';
import type { EffectEstimate } from '../runtime/consentDialogs.js';


const seconds = (ms: number) => `${ms / 1000} s`;

/** Whether the statement updates or deletes rows: it starts with UPDATE or DELETE, or a WITH list leads to one. */
function changesRows(sql: string, db: Database): boolean {
  const words = tokenize(sql, db.engine).filter((t) => t.kind === 'word');
  const verb = words[0]?.text;
  return verb === 'UPDATE' || verb === 'DELETE' || (verb === 'WITH' && words.some((w) => w.text === 'UPDATE' || w.text === 'DELETE'));
}

const timedOut = (error: unknown) => error instanceof DriverFailure && error.kind === 'statement_timeout';

/**
 * Previews the effect of a write the user is asked about, before they approve it: undefined unless it
 * updates or deletes rows.
 * The statement itself never runs: its table and condition become `SELECT count(*) FROM … WHERE …`,
 * run read only, with its bound values, for at most `timeoutMs`; past that the planner's estimate of
 * the same SELECT. A condition that itself changes state (`nextval(…)`) is never run.
 */
export async function previewEffect(
  db: Database,
  statement: { sql: string; params: unknown[] },
  signal: AbortSignal,
  timeoutMs: number = DATABASES.effectPreviewTimeoutMs,
): Promise<EffectEstimate | undefined> {
  if (!changesRows(statement.sql, db)) return undefined;
  const { effects } = engineModule(db.engine);
  let selection: RowSelection | NotSelectable;
  try {
    selection = await effects.rowSelection(statement.sql, statement.params);
  } catch {
    selection = { refused: 'the statement could not be read' };
  }
  if ('refused' in selection) return { rows: null, reason: selection.refused };
  const count = selectRows(selection, 'count(*)');
  if (classifyStatement(count, db.engine).kind !== 'read') return { rows: null, reason: 'its condition changes state, so it is not run early' };
  try {
    const result = await db.read(count, { params: selection.params, maxRows: 1, timeoutMs, signal });
    return { rows: Number(valuesOf(result.rows)[0]?.[0]), basis: 'counted' };
  } catch (error) {
    signal.throwIfAborted();
    if (!timedOut(error)) return { rows: null, reason: 'counting the rows failed' };
  }
  // The planner's estimate of the same rows; undefined when the engine keeps none (SQLite).
  const planned = await effects.plannedRows?.(db, selectRows(selection, '1'), selection.params, signal, timeoutMs).catch(() => {
    signal.throwIfAborted();
    return undefined;
  });
  if (planned !== undefined) return { rows: Math.round(planned), basis: 'planner' };
  const why = effects.whyNoEstimate ?? 'the planner gave no estimate';
  return { rows: null, reason: `counting took over ${seconds(timeoutMs)} and ${why}` };
}
