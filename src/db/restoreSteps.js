// A kept write taken back (db/keptWrites.ts RestorePlan), step by step, inside the one write transaction
// the engine holds: shared by the SQLite query process (plain JavaScript) and the other engines, as
// keepSteps.js is. The engine commits when the rows were restored and rolls back otherwise.
import { keyText, rowsByKey } from './keepSteps.js';

/** @typedef {import('./keptWrites.js').ExactValue} ExactValue */
/** @typedef {import('./keptWrites.js').KeptVerb} KeptVerb */
/** @typedef {import('./keptWrites.js').KeptRows} KeptRows */
/** @typedef {import('./keptWrites.js').Restored} Restored */
/** @typedef {import('./keptWrites.js').RowDifference} RowDifference */
/** @typedef {import('./keepSteps.js').KeptSession} KeptSession */

/**
 * What to run to take back a kept write of `verb`: its kept rows, the read of rows by key (`current`,
 * keptRowsSql.ts `rowsByKeys`), and the one-row statements that put them back (keptRowsSql.ts):
 * `remove` (`deleteByKey`, bound to a key), `put` (`insertBack`, bound to every column) and `setBack`
 * (`updateBack`, bound to every column but the key's, then to the key), all over `rows.columns`.
 * @typedef {{
 *   verb: KeptVerb, rows: KeptRows, force: boolean,
 *   current: import('./keepSteps.js').ByKeys, remove: string, put: string, setBack: string
 * }} RestoreStepsPlan
 */

/** The verb that takes back each verb: the undo of an undo is the write again. @type {Record<KeptVerb, KeptVerb>} */
const INVERSE = { INSERT: 'DELETE', DELETE: 'INSERT', UPDATE: 'UPDATE' };

/**
 * One row the write left (`left`, null for a deleted one), as it is now (`now`, null when there is none),
 * and whether the two differ.
 * @typedef {{ kept: ExactValue[], left: ExactValue[] | null, now: ExactValue[] | null, differs: boolean }} Looked
 */

/**
 * Each kept row (`kept`: a DELETE's before-images, else the after-images) beside the row of its key now,
 * compared a batch of keys at a time, the event loop given a turn between two batches.
 * @param {RestoreStepsPlan} plan
 * @param {ExactValue[][]} kept
 * @param {KeptSession} session
 * @returns {Promise<Looked[]>}
 */
async function lookUp(plan, kept, session) {
  const { keys } = plan.rows;
  const now = await rowsByKey(kept, keys, plan.current, session);
  /** @type {Looked[]} */
  const looked = [];
  for (const [i, row] of kept.entries()) {
    if (i > 0 && i % plan.current.batch === 0) await session.turn?.();
    const left = plan.verb === 'DELETE' ? null : row;
    const current = now.get(keyText(row, keys)) ?? null;
    looked.push({ kept: row, left, now: current, differs: JSON.stringify(current) !== JSON.stringify(left) });
  }
  return looked;
}

/**
 * Takes the write back, unless a row is no longer as it left it (`differs`, nothing changed) and not
 * `force`: an INSERT's rows deleted, an UPDATE's set back by key, a DELETE's inserted again; with `force` a
 * missing row is inserted again, a row in a DELETE's place replaced. Answers the undo's own kept rows.
 * @param {RestoreStepsPlan} plan
 * @param {KeptSession} session
 * @returns {Promise<Restored>}
 */
export async function restoreSteps(plan, session) {
  const { rows } = plan;
  const kept = plan.verb === 'DELETE' ? rows.before : rows.after;
  const looked = await lookUp(plan, kept, session);
  /** @type {RowDifference[]} */
  const differs = looked
    .filter((row) => row.differs)
    .map((row) => ({ key: rows.keys.map((k) => row.kept[k] ?? null), now: row.now, expected: row.left }));
  if (differs.length > 0 && !plan.force) return { restored: false, differs };
  const shape = { columns: rows.columns, keys: rows.keys };
  const run = new Statements(session, rows.keys);
  if (plan.verb === 'INSERT') {
    const removed = looked.flatMap((row) => (row.now ? [row.now] : []));
    for (const row of removed) await run.remove(plan.remove, row);
    return { restored: true, rowsAffected: run.changed, verb: INVERSE.INSERT, kept: { ...shape, before: removed, after: [] } };
  }
  if (plan.verb === 'DELETE') {
    for (const row of looked) {
      if (row.now) await run.remove(plan.remove, row.now);
      await run.put(plan.put, row.kept);
    }
    const found = await rowsByKey(rows.before, rows.keys, plan.current, session);
    const after = rows.before.flatMap((row) => {
      const now = found.get(keyText(row, rows.keys));
      return now ? [now] : [];
    });
    return { restored: true, rowsAffected: run.changed, verb: INVERSE.DELETE, kept: { ...shape, before: [], after } };
  }
  return setBack(plan, looked, run, session);
}

/**
 * An UPDATE taken back: each row set to its before-image by the key it has now, a missing one (`force`)
 * inserted again. The undo's kept rows pair each row set back, as it was and as it is (a row inserted
 * again has no before-image, so it is not among them).
 * @param {RestoreStepsPlan} plan
 * @param {Looked[]} looked
 * @param {Statements} run
 * @param {KeptSession} session
 * @returns {Promise<Restored>}
 */
async function setBack(plan, looked, run, session) {
  const { rows } = plan;
  /** @type {ExactValue[][]} */
  const overwritten = [];
  /** @type {ExactValue[][]} */
  const restored = [];
  for (const [i, row] of looked.entries()) {
    const before = /** @type {ExactValue[]} */ (rows.before[i]);
    if (!row.now) {
      await run.put(plan.put, before);
      continue;
    }
    await run.setBack(plan.setBack, before, row.now);
    overwritten.push(row.now);
    restored.push(before);
  }
  const found = await rowsByKey(restored, rows.keys, plan.current, session);
  const after = restored.map((row) => found.get(keyText(row, rows.keys)) ?? row);
  return { restored: true, rowsAffected: run.changed, verb: INVERSE.UPDATE, kept: { columns: rows.columns, keys: rows.keys, before: overwritten, after } };
}

/** The one-row statements of an undo, counting the rows they change. */
class Statements {
  changed = 0;
  /** @param {KeptSession} session @param {number[]} keys */
  constructor(session, keys) {
    this.session = session;
    this.keys = keys;
  }

  /** @param {string} sql @param {ExactValue[]} params */
  async #run(sql, params) {
    const done = await this.session.exact(sql, params.map((v) => this.session.bind(v)), { rows: 0, bytes: 0, toEnd: true });
    this.changed += done.rowsAffected;
  }

  /** Deletes the row with `row`'s key. @param {string} sql @param {ExactValue[]} row */
  remove(sql, row) {
    return this.#run(sql, this.keys.map((k) => row[k] ?? null));
  }

  /** Inserts `row`. @param {string} sql @param {ExactValue[]} row */
  put(sql, row) {
    return this.#run(sql, row);
  }

  /**
   * Sets the row with `now`'s key to `row`: bound to `row`'s values but the key's (its key's when it has
   * no others), as keptRowsSql.ts `updateBack` sets them, then to the key.
   * @param {string} sql @param {ExactValue[]} row @param {ExactValue[]} now
   */
  setBack(sql, row, now) {
    const others = row.filter((_, i) => !this.keys.includes(i));
    const set = others.length > 0 ? others : this.keys.map((k) => row[k] ?? null);
    return this.#run(sql, [...set, ...this.keys.map((k) => now[k] ?? null)]);
  }
}
