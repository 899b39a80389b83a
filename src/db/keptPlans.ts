import type { Engine } from '../core/shared/engineNames.js';
import { UNDO } from '../core/contract.js';
import { deleteByKey, type ExactDialect, insertBack, insertBackMany, insertKept, keptRowsBefore, rowsByKeys, type TypedColumn, updateBack, updateBackMany } from '../sql/keptRowsSql.js';
import { DriverFailure } from './driverFailure.js';
import type { KeepStepsPlan } from './keepSteps.js';
import type { KeepPlan, RestorePlan } from './keptWrites.js';
import type { RestoreStepsPlan } from './restoreSteps.js';

/**
 * The statements that keep an approved write (keepSteps.js), in the engine's exact dialect: the rows
 * before in key order, the statement (an INSERT returning every column in exact form), an UPDATE's rows
 * read again by key. An INSERT that cannot return its rows that way is refused (it was not analysed as one).
 */
export function keepStepsPlan(plan: KeepPlan, engine: Engine, dialect: ExactDialect): KeepStepsPlan {
  const { columns, keys: keyNames } = plan.table;
  const keys = keyNames.map((name) => columns.findIndex((c) => c.name === name));
  if (keys.length === 0 || keys.includes(-1)) throw new DriverFailure('invalid_argument', `the key of ${plan.table.name} is not among its columns`);
  const shape = { verb: plan.verb, columns: columns.map((c) => c.name), keys, maxRows: plan.maxRows, maxBytes: plan.maxBytes };
  if (plan.verb === 'INSERT') {
    const insert = insertKept(plan.sql, columns, engine, dialect);
    if ('refused' in insert) throw new DriverFailure('invalid_argument', `the INSERT cannot be kept: ${insert.refused}`);
    return { ...shape, statement: { sql: insert.sql, params: plan.params } };
  }
  if (!plan.selection) throw new DriverFailure('invalid_argument', `the ${plan.verb} has no row selection to keep`);
  const before = { sql: keptRowsBefore(plan.selection, columns, keys, plan.maxRows + 1, dialect), params: plan.selection.params };
  const after = plan.verb === 'UPDATE' ? { after: byKeys(plan.table, columns, keys, dialect) } : {};
  return { ...shape, before, statement: { sql: plan.sql, params: plan.params }, ...after };
}

/** Why kept rows (read back from a file) cannot be what a kept write left, or undefined. */
function malformed({ rows, verb }: RestorePlan): string | undefined {
  const width = rows.columns.length;
  if (rows.keys.length === 0 || !rows.keys.every((k) => Number.isInteger(k) && k >= 0 && k < width)) return 'their key is not among their columns';
  // Only an UPDATE's pair may lack a side (an undo's), not both.
  const fits = (row: unknown) => (verb === 'UPDATE' && row === null) || (Array.isArray(row) && row.length === width);
  if (![...rows.before, ...rows.after].every(fits)) return 'a row does not have one value per column';
  if (verb === 'UPDATE' && rows.before.length !== rows.after.length) return "an UPDATE's rows after do not pair with its rows before";
  if (verb === 'UPDATE' && rows.before.some((row, i) => row === null && rows.after[i] === null)) return "an UPDATE's row is absent both before and after";
  return undefined;
}

/** The statements that take a kept write back (restoreSteps.js) over `columns`, the kept rows' columns with their types now. */
export function restoreStepsPlan(plan: RestorePlan, columns: TypedColumn[], dialect: ExactDialect): RestoreStepsPlan {
  const why = malformed(plan);
  if (why) throw new DriverFailure('invalid_argument', `the kept rows cannot be put back: ${why}`);
  const { keys } = plan.rows;
  return {
    verb: plan.verb,
    rows: plan.rows,
    force: plan.force,
    current: byKeys(plan.table, columns, keys, dialect),
    remove: deleteByKey(plan.table, columns, keys, dialect),
    put: insertBack(plan.table, columns, dialect),
    setBack: updateBack(plan.table, columns, keys, dialect),
    ...(dialect.setsBackInBatches ? { many: manyStatements(plan.table, columns, keys, dialect) } : {}),
  };
}

/** The statements that set back and insert `UNDO.keysPerRead` rows at once, where the engine needs them. */
const manyStatements = (table: RestorePlan['table'], columns: TypedColumn[], keys: number[], dialect: ExactDialect) => ({
  setBack: updateBackMany(table, columns, keys, UNDO.keysPerRead, dialect),
  put: insertBackMany(table, columns, UNDO.keysPerRead, dialect),
  batch: UNDO.keysPerRead,
});

const byKeys = (table: RestorePlan['table'], columns: TypedColumn[], keys: number[], dialect: ExactDialect) => ({
  sql: rowsByKeys(table, columns, keys, UNDO.keysPerRead, dialect),
  batch: UNDO.keysPerRead,
});
