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
 * keptRowsSql.ts `rowsByKeys`, also the undo's own rows afterwards), and the one-row statements that put
 * them back (keptRowsSql.ts):
 * `remove` (`deleteByKey`, bound to a key), `put` (`insertBack`, bound to every column) and `setBack`
 * (`updateBack`, bound to every column but the key's, then to the key), all over `rows.columns`; where
 * the engine needs it, `many` sets back (`updateBackMany`) or puts (`insertBackMany`) `batch` rows at once.
 * @typedef {{
 *   verb: KeptVerb, rows: KeptRows, force: boolean,
 *   current: import('./keepSteps.js').ByKeys, remove: string, put: string, setBack: string,
 *   many?: { setBack: string, put: string, batch: number }
 * }} RestoreStepsPlan
 */

/** The verb of an undo that touched no row: the inverse of the write's. @type {Record<KeptVerb, KeptVerb>} */
const INVERSE = { INSERT: 'DELETE', DELETE: 'INSERT', UPDATE: 'UPDATE' };

/** @typedef {ExactValue[] | null} KeptRow */

/**
 * One row of a kept write: as the write found it (`before`) and left it (`after`), null where it was
 * absent. Taking the write back makes the row `before` again.
 * @typedef {{ before: KeptRow, after: KeptRow }} Pair
 */

/**
 * A kept write's rows as pairs: an INSERT's rows were absent before, a DELETE's are absent after, an
 * UPDATE's are paired by position (an undo's own UPDATE may have either side null).
 * @param {KeptVerb} verb
 * @param {KeptRows} rows
 * @returns {Pair[]}
 */
function pairsOf(verb, rows) {
  if (verb === 'INSERT') return rows.after.map((after) => ({ before: null, after }));
  if (verb === 'DELETE') return rows.before.map((before) => ({ before, after: null }));
  return rows.before.map((before, i) => ({ before, after: rows.after[i] ?? null }));
}

/**
 * One pair, the row of its key as it is now (`now`, null when there is none), and whether that differs
 * from how the write left it. `row` is the side the key is read from.
 * @typedef {{ pair: Pair, row: ExactValue[], now: KeptRow, differs: boolean }} Looked
 */

/**
 * Each pair beside the row of its key now, compared a batch of keys at a time, the event loop given a
 * turn between two batches.
 * @param {RestoreStepsPlan} plan
 * @param {Pair[]} pairs
 * @param {KeptSession} session
 * @returns {Promise<Looked[]>}
 */
async function lookUp(plan, pairs, session) {
  const { keys } = plan.rows;
  const rows = pairs.map((pair) => /** @type {ExactValue[]} */ (pair.after ?? pair.before));
  const now = await rowsByKey(rows, keys, plan.current, session);
  /** @type {Looked[]} */
  const looked = [];
  for (const [i, pair] of pairs.entries()) {
    if (i > 0 && i % plan.current.batch === 0) await session.turn?.();
    const row = /** @type {ExactValue[]} */ (rows[i]);
    const current = now.get(keyText(row, keys)) ?? null;
    looked.push({ pair, row, now: current, differs: JSON.stringify(current) !== JSON.stringify(pair.after) });
  }
  return looked;
}

/**
 * Takes the write back, unless a row is no longer as it left it (`differs`, nothing changed) and not
 * `force`: each row made as the write found it, whatever it is now: inserted where there is none, deleted
 * where it was absent, else set back by key. Answers the undo's own kept rows: each row it touched as it
 * found it and as it left it (read again by key), so that taking the undo back is exact, forced or not.
 * @param {RestoreStepsPlan} plan
 * @param {KeptSession} session
 * @returns {Promise<Restored>}
 */
export async function restoreSteps(plan, session) {
  const { rows } = plan;
  const looked = await lookUp(plan, pairsOf(plan.verb, rows), session);
  /** @type {RowDifference[]} */
  const differs = looked
    .filter((row) => row.differs)
    .map((row) => ({ key: rows.keys.map((k) => row.row[k] ?? null), now: row.now, expected: row.pair.after }));
  if (differs.length > 0 && !plan.force) return { restored: false, differs };
  const run = new Statements(session, plan);
  /** @type {Array<{ was: KeptRow, made: KeptRow }>} */
  const touched = [];
  for (const [i, { pair, now }] of looked.entries()) {
    if (i > 0 && i % plan.current.batch === 0) await session.turn?.();
    if (now === null && pair.before === null) continue;
    if (pair.before === null) await run.remove(plan.remove, /** @type {ExactValue[]} */ (now));
    else if (now === null) await run.put(pair.before);
    else await run.setBack(pair.before, now);
    touched.push({ was: now, made: pair.before });
  }
  await run.flush();
  return { restored: true, rowsAffected: run.changed, ...(await undoneRows(plan, touched, session)) };
}

/**
 * The undo's own kept rows: each row it touched as it was and as it is now, read again by key; a row
 * put back that its key no longer finds stops the undo (its rows could not be kept exactly).
 * @param {RestoreStepsPlan} plan
 * @param {Array<{ was: KeptRow, made: KeptRow }>} touched
 * @param {KeptSession} session
 * @returns {Promise<{ verb: KeptVerb, kept: KeptRows }>}
 */
async function undoneRows(plan, touched, session) {
  const { columns, keys } = plan.rows;
  const made = touched.flatMap(({ made: row }) => (row ? [row] : []));
  const found = await rowsByKey(made, keys, plan.current, session);
  const pairs = touched.map(({ was, made: row }) => {
    if (row === null) return { before: was, after: null };
    const now = found.get(keyText(row, keys));
    if (!now) throw new Error('a row the undo put back is not found again by its key, so the undo could not itself be undone');
    return { before: was, after: now };
  });
  const onlyInserted = pairs.every((pair) => pair.before === null);
  const onlyDeleted = pairs.every((pair) => pair.after === null);
  const verb = pairs.length === 0 ? INVERSE[plan.verb] : onlyInserted ? 'INSERT' : onlyDeleted ? 'DELETE' : 'UPDATE';
  const before = verb === 'INSERT' ? [] : pairs.map((pair) => pair.before);
  const after = verb === 'DELETE' ? [] : pairs.map((pair) => pair.after);
  return { verb, kept: { columns, keys, before, after } };
}

/**
 * The statements of an undo, counting the rows they change: one a row, but where the engine needs it
 * (`many`) rows put or set back wait until a batch of the one kind is full, or until a statement of
 * another kind or the end (`flush`) comes, so that the rows change in the order they came.
 */
class Statements {
  changed = 0;
  /** @type {'put' | 'setBack'} */
  #kind = 'put';
  /** @type {ExactValue[][]} */
  #waiting = [];
  /** @param {KeptSession} session @param {RestoreStepsPlan} plan */
  constructor(session, plan) {
    this.session = session;
    this.keys = plan.rows.keys;
    this.one = { put: plan.put, setBack: plan.setBack };
    this.many = plan.many;
  }

  /** @param {string} sql @param {ExactValue[]} params */
  async #run(sql, params) {
    const done = await this.session.exact(sql, params.map((v) => this.session.bind(v)), { rows: 0, bytes: 0, toEnd: true });
    this.changed += done.rowsAffected;
  }

  /** Runs a row's statement of `kind`, or with `many` lets it wait for its batch. @param {'put' | 'setBack'} kind @param {ExactValue[]} params */
  async #wait(kind, params) {
    if (!this.many) return this.#run(this.one[kind], params);
    if (kind !== this.#kind) await this.flush();
    this.#kind = kind;
    this.#waiting.push(params);
    if (this.#waiting.length < this.many.batch) return;
    const batch = this.#waiting.flat();
    this.#waiting = [];
    await this.#run(this.many[kind], batch);
  }

  /** Runs the rows still waiting, fewer than a batch, one statement each. */
  async flush() {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const params of waiting) await this.#run(this.one[this.#kind], params);
  }

  /** Deletes the row with `row`'s key. @param {string} sql @param {ExactValue[]} row */
  async remove(sql, row) {
    await this.flush();
    await this.#run(sql, this.keys.map((k) => row[k] ?? null));
  }

  /** Inserts `row`. @param {ExactValue[]} row */
  put(row) {
    return this.#wait('put', row);
  }

  /**
   * Sets the row with `now`'s key to `row`: bound to `row`'s values but the key's (its key's when it has
   * no others), as keptRowsSql.ts `updateBack` sets them, then to the key.
   * @param {ExactValue[]} row @param {ExactValue[]} now
   */
  setBack(row, now) {
    const others = row.filter((_, i) => !this.keys.includes(i));
    const set = others.length > 0 ? others : this.keys.map((k) => row[k] ?? null);
    return this.#wait('setBack', [...set, ...this.keys.map((k) => now[k] ?? null)]);
  }
}
