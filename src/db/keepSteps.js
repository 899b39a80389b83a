// An approved write run with the rows it changes kept, and a kept write taken back (db/keptWrites.ts).
// The steps are shared by the SQLite query process (plain JavaScript, so the same file serves it) and
// the other engines; each runs them inside the one write transaction it holds, commits when they end,
// and rolls back when they throw or (restoreSteps) find rows changed since.

/** @typedef {import('./keptWrites.js').ExactValue} ExactValue */
/** @typedef {import('./keptWrites.js').KeptVerb} KeptVerb */
/** @typedef {import('./keptWrites.js').KeptRows} KeptRows */
/** @typedef {import('./keptWrites.js').Restored} Restored */
/** @typedef {import('./keptWrites.js').RowDifference} RowDifference */

/**
 * How many rows, and bytes of them (`exactBytes`), a statement's rows are kept to. Past either it says
 * so (`over`) and keeps no more; with `toEnd` it still runs to its end (a write's RETURNING rows).
 * @typedef {{ rows: number, bytes: number, toEnd: boolean }} Keep
 */

/**
 * What an engine does inside the transaction it holds. `exact` runs a statement and answers its rows in
 * exact form (in table column order, as `ExactDialect.read` selects them), the first that fit `keep`,
 * and how many rows it changed (RETURNING rows counted). `write` runs the approved statement as
 * `Database.write` does and answers what that would (its own RETURNING rows, its budgets). `bind` makes an
 * exact value a parameter for the engine's driver (to go where `ExactDialect.bound` wrote its placeholder).
 * `turn`, where the steps run on the server's event loop, gives it a turn between two slices of their own
 * work (core/nextTurn.ts); the SQLite query process has none.
 * @typedef {{
 *   exact: (sql: string, params: unknown[], keep: Keep) => Promise<{ rows: ExactValue[][], rowsAffected: number, over: boolean }>,
 *   write: (sql: string, params: unknown[]) => Promise<unknown>,
 *   bind: (value: ExactValue) => unknown,
 *   turn?: () => Promise<void>
 * }} KeptSession
 */

/**
 * A read of rows by key, `batch` keys at once (keptRowsSql.ts `rowsByKeys`): bound to the key values of
 * `batch` rows in order; a shorter batch repeats its last key.
 * @typedef {{ sql: string, batch: number }} ByKeys
 */

/**
 * What to run to keep a write: the rows it will change as they are (`before`: an UPDATE's or DELETE's,
 * exact, in key order), the statement (`statement`: an INSERT with its exact RETURNING of every column,
 * whose rows are its after-images; else as approved) and an UPDATE's rows afterwards (`after`, by the
 * keys of `before`). `columns` and `keys` (indexes into `columns`) describe every row kept.
 * @typedef {{
 *   verb: KeptVerb, columns: string[], keys: number[],
 *   before?: { sql: string, params: unknown[] },
 *   statement: { sql: string, params: unknown[] },
 *   after?: ByKeys,
 *   maxRows: number, maxBytes: number
 * }} KeepStepsPlan
 */

/**
 * The statement's outcome (what `Database.write` would answer) with its rows kept, or why they were not.
 * @typedef {{ result: unknown, kept: KeptRows } | { result: unknown, notKept: string }} KeptOutcome
 */

/**
 * Bytes a kept row is counted as: about its size as JSON, the same on every engine.
 * @param {ExactValue[]} row
 */
export function exactBytes(row) {
  let bytes = 2;
  for (const value of row) {
    if (value === null) bytes += 5;
    else if (typeof value === 'string') bytes += value.length + 3;
    else bytes += String(Object.values(value)[0]).length + 10;
  }
  return bytes;
}

/** @param {number} maxRows @param {number} maxBytes */
const overWhy = (maxRows, maxBytes) => `it changes more than ${maxRows} rows or ${maxBytes} bytes of them`;

/** An INSERT's answer as `Database.write` gives it: no rows (the RETURNING was Sluice's), the count. @param {number} rowsAffected */
const insertResult = (rowsAffected) => ({ columns: [], rows: [], truncated: false, cellsCut: 0, rowsAffected });

/**
 * Runs the write with its rows kept, inside the transaction the caller holds (and commits after, kept or
 * not): an UPDATE's or DELETE's rows before, the statement, an INSERT's returned rows or an UPDATE's rows
 * read again by key. Past `maxRows` or `maxBytes`, or when an UPDATE moved a row off its key, nothing is
 * kept (`notKept`) and the write stands.
 * @param {KeepStepsPlan} plan
 * @param {KeptSession} session
 * @returns {Promise<KeptOutcome>}
 */
export async function keepSteps(plan, session) {
  const keep = { rows: plan.maxRows, bytes: plan.maxBytes, toEnd: false };
  const shape = { columns: plan.columns, keys: plan.keys };
  if (plan.verb === 'INSERT') {
    const done = await session.exact(plan.statement.sql, plan.statement.params, { ...keep, toEnd: true });
    const result = insertResult(done.rowsAffected);
    return done.over ? { result, notKept: overWhy(plan.maxRows, plan.maxBytes) } : { result, kept: { ...shape, before: [], after: done.rows } };
  }
  if (!plan.before || (plan.verb === 'UPDATE' && !plan.after)) throw new TypeError(`a kept ${plan.verb} reads its rows before${plan.verb === 'UPDATE' ? ' and after' : ''}`);
  const before = await session.exact(plan.before.sql, plan.before.params, keep);
  const result = await session.write(plan.statement.sql, plan.statement.params);
  if (before.over) return { result, notKept: overWhy(plan.maxRows, plan.maxBytes) };
  const changed = /** @type {{ rowsAffected?: number }} */ (result).rowsAffected ?? 0;
  if (changed > before.rows.length) return { result, notKept: 'it changed rows its condition did not select beforehand' };
  if (plan.verb === 'DELETE') return { result, kept: { ...shape, before: before.rows, after: [] } };
  const found = await rowsByKey(before.rows, plan.keys, /** @type {ByKeys} */ (plan.after), session);
  const after = before.rows.map((row) => found.get(keyText(row, plan.keys)));
  if (after.some((row) => row === undefined)) return { result, notKept: 'it changed key columns' };
  const total = [...before.rows, .../** @type {ExactValue[][]} */ (after)].reduce((sum, row) => sum + exactBytes(row), 0);
  if (total > plan.maxBytes) return { result, notKept: overWhy(plan.maxRows, plan.maxBytes) };
  return { result, kept: { ...shape, before: before.rows, after: /** @type {ExactValue[][]} */ (after) } };
}

/**
 * A row's key values as one text, to match rows by.
 * @param {ExactValue[]} row
 * @param {number[]} keys
 */
export const keyText = (row, keys) => JSON.stringify(keys.map((k) => row[k] ?? null));

/**
 * The rows as they are now of each row's key (`keys` indexes into `rows`' cells), read `byKeys.batch`
 * keys at a time, by key text.
 * @param {ExactValue[][]} rows
 * @param {number[]} keys
 * @param {ByKeys} byKeys
 * @param {KeptSession} session
 * @returns {Promise<Map<string, ExactValue[]>>}
 */
export async function rowsByKey(rows, keys, byKeys, session) {
  /** @type {Map<string, ExactValue[]>} */
  const found = new Map();
  const everything = { rows: Number.MAX_SAFE_INTEGER, bytes: Number.MAX_SAFE_INTEGER, toEnd: true };
  for (let at = 0; at < rows.length; at += byKeys.batch) {
    const batch = rows.slice(at, at + byKeys.batch);
    while (batch.length < byKeys.batch) batch.push(/** @type {ExactValue[]} */ (batch.at(-1)));
    const params = batch.flatMap((row) => keys.map((k) => session.bind(row[k] ?? null)));
    for (const row of (await session.exact(byKeys.sql, params, everything)).rows) found.set(keyText(row, keys), row);
  }
  return found;
}
