// A write tried once inside a transaction that is always rolled back, to show exactly what it would
// change before anyone approves it (Database.rehearse). The steps are shared by the SQLite query process
// (plain JavaScript, so the same file serves it) and the server drivers; each engine runs them in its
// own transaction, with its own time budget and lock wait, and rolls back.

/**
 * What to run: the rows as they are (`before`: an UPDATE's or DELETE's own table and condition, in key
 * order), the write itself (`statement`: an INSERT with `RETURNING *`), and, once per row of `before`
 * kept, that row as it is afterwards (`after.sql` bound to the row's cells at `after.keys`). Each read
 * keeps its first `shown` rows; the write's count is always whole.
 * @typedef {{
 *   before?: { sql: string, params: unknown[] },
 *   statement: { sql: string, params: unknown[] },
 *   after?: { sql: string, keys: number[] },
 *   shown: number, budgetMs: number, lockWaitMs: number
 * }} RehearsalPlan
 */

/**
 * What the tried write did: the columns of the rows shown, those rows before (`before`), as the write
 * returned them (`returned`), and afterwards (`after`, one per row of `before`: null once it is gone), and
 * how many rows it changed. Or why it was stopped: past its time, or waiting for another session's lock.
 * @typedef {{ ran: true, columns: string[], before: unknown[][], returned: unknown[][], after: Array<unknown[] | null>, rowsAffected: number }
 *   | { ran: false, stopped: 'time' | 'lock' }} Rehearsed
 */

/**
 * One statement of the rehearsal, in its transaction: its columns' names, its first `maxRows` rows and
 * the rows it changed (all of them, RETURNING rows counted).
 * @typedef {(sql: string, params: unknown[], maxRows: number) => Promise<{ columns: string[], rows: unknown[][], rowsAffected: number }>} RehearsalRun
 */

/**
 * Runs the plan's steps in order through `run`, inside the transaction the caller holds.
 * @param {RehearsalPlan} plan
 * @param {RehearsalRun} run
 * @returns {Promise<Rehearsed>}
 */
export async function rehearseSteps(plan, run) {
  const before = plan.before ? await run(plan.before.sql, plan.before.params, plan.shown) : undefined;
  const done = await run(plan.statement.sql, plan.statement.params, plan.shown);
  /** @type {Array<unknown[] | null>} */
  const after = [];
  if (plan.after && before) {
    const { sql, keys } = plan.after;
    for (const row of before.rows) after.push((await run(sql, keys.map((i) => row[i]), 1)).rows[0] ?? null);
  }
  const columns = before && before.columns.length > 0 ? before.columns : done.columns;
  return { ran: true, columns, before: before?.rows ?? [], returned: done.rows, after, rowsAffected: done.rowsAffected };
}
