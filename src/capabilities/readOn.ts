import type { Database, PageOptions, ReadOptions, ResultSet, Rows } from '../db/database.js';
import type { CursorScope } from '../runtime/heldReads.js';
import { invalidParams, ToolError } from '../core/errors.js';
import { RESULT_CURSORS } from '../core/contract.js';
import { fromDriverError } from './dbErrors.js';
import { toResultSet } from './resultSet.js';
import type { CallContext } from './types.js';

/** The `cursor` argument of execute_query and browse_table. */
export const cursorProperty = {
  type: 'string',
  minLength: 1,
  maxLength: 1_024,
  description: `A cut answer’s next_cursor: its next rows, from the same snapshot (open ${RESULT_CURSORS.idleMs / 60_000} min after each page).`,
} as const;

/** A read's answer and, when it was cut and its engine holds reads, the cursor of its next page. */
export type ReadAnswer = { result: ResultSet<Rows>; nextCursor?: string };

/**
 * Runs one read. Where the engine holds reads (`Database.holdRead`), a read cut by its rows or bytes
 * stays open behind a cursor for `scope`; `statement` is what a call that reads on may repeat (the
 * SQL, or browse_table's selection). Elsewhere the read runs as always and its cut answer has no cursor.
 */
export async function readHeld(ctx: CallContext, db: Database, scope: CursorScope, statement: string, sql: string, options: ReadOptions): Promise<ReadAnswer> {
  if (!db.holdRead) return { result: await db.read(sql, options) };
  const { result, rest } = await db.holdRead(sql, options);
  if (!rest) return { result };
  return { result, nextCursor: await ctx.heldReads.hold(scope, statement, rest, db.sessions) };
}

/**
 * The next page of the read `cursor` names, as the tool's answer: `statement`, when the call repeats
 * it, must be the one the cursor reads on. A driver's failure ends the read and is the tool error it maps to.
 */
export async function readOn(ctx: CallContext, scope: CursorScope, cursor: string, statement: string | undefined, options: PageOptions) {
  const started = performance.now();
  ctx.progress(0.3, 1, 'Reading on');
  const page = await ctx.heldReads.next(scope, cursor, statement, options).catch((error: unknown) => {
    throw fromDriverError(error);
  });
  ctx.progress(1, 1, `${page.result.rows.length} row(s)`);
  return withCursor(toResultSet(page.result, 'read', performance.now() - started), page.nextCursor);
}

/** A result set's structured content with its `next_cursor`, when it has one. */
export const withCursor = (structured: ReturnType<typeof toResultSet>, nextCursor: string | undefined) =>
  nextCursor === undefined ? structured : { ...structured, next_cursor: nextCursor };

/** Refuses an argument that belongs to the statement a cursor reads on, given beside the cursor. */
export function refuseBesideCursor(argument: string, given: boolean): void {
  if (given) throw new ToolError('invalid_argument', `${argument} belongs to the statement the cursor reads on: leave it out beside cursor`);
}

/** `-32602` for a tool's required argument that only a cursor may stand in for, as a missing one gets. */
export const requiredUnlessCursor = (name: string) =>
  invalidParams(`Invalid arguments: arguments.${name} is required (or cursor, to read on from a cut answer)`, { path: `arguments.${name}` });
