import { DATABASES } from '../core/contract.js';
import { classifyStatement } from '../sql/classify.js';
import { type NotSelectable, type RowSelection, selectRows, tokenRowSelection } from '../sql/countQuery.js';
import { type Database, valuesOf } from '../db/database.js';
import { DriverFailure } from '../db/driverFailure.js';
import { postgresRowSelection } from '../db/engines/postgres/postgresRowSelection.js';
import { tokenize } from '../sql/tokens.js';
import type { EffectPreview } from '../runtime/consentDialogs.js';


const seconds = (ms: number) => `${ms / 1000} s`;

/** Whether the statement updates or deletes rows: it starts with UPDATE or DELETE, or a WITH list leads to one. */
function changesRows(sql: string, db: Database): boolean {
  const words = tokenize(sql, db.engine).filter((t) => t.kind === 'word');
  const verb = words[0]?.text;
  return verb === 'UPDATE' || verb === 'DELETE' || (verb === 'WITH' && words.some((w) => w.text === 'UPDATE' || w.text === 'DELETE'));
}

const timedOut = (error: unknown) => error instanceof DriverFailure && error.kind === 'statement_timeout';

/** The planner's estimate of the selected rows; undefined when the engine keeps none (SQLite). */
async function plannerEstimate(db: Database, selection: RowSelection, signal: AbortSignal, timeoutMs: number): Promise<number | undefined> {
  const explain = (sql: string) => db.read(sql, { params: selection.params, maxRows: 100, timeoutMs, signal });
  if (db.engine === 'postgres') {
    const result = await explain(`EXPLAIN (FORMAT JSON) ${selectRows(selection, '1')}`);
    const cell = valuesOf(result.rows)[0]?.[0];
    const plan = (typeof cell === 'string' ? JSON.parse(cell) : cell) as [{ Plan?: { 'Plan Rows'?: unknown } }];
    const rows = plan[0]?.Plan?.['Plan Rows'];
    return typeof rows === 'number' ? rows : undefined;
  }
  if (db.engine === 'mysql') {
    const result = await explain(`EXPLAIN ${selectRows(selection, '1')}`);
    const column = result.columns.findIndex((c) => c.name.toLowerCase() === 'rows');
    const rows = valuesOf(result.rows)[0]?.[column];
    return column === -1 || rows === null || rows === undefined ? undefined : Number(rows);
  }
  return undefined;
}

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
): Promise<EffectPreview | undefined> {
  if (!changesRows(statement.sql, db)) return undefined;
  let selection: RowSelection | NotSelectable;
  try {
    selection = db.engine === 'postgres' ? await postgresRowSelection(statement.sql, statement.params) : tokenRowSelection(statement.sql, db.engine, statement.params);
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
  const planned = await plannerEstimate(db, selection, signal, timeoutMs).catch(() => {
    signal.throwIfAborted();
    return undefined;
  });
  if (planned !== undefined) return { rows: Math.round(planned), basis: 'planner' };
  const why = db.engine === 'sqlite' ? 'SQLite keeps no row estimates' : 'the planner gave no estimate';
  return { rows: null, reason: `counting took over ${seconds(timeoutMs)} and ${why}` };
}
