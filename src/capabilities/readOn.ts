import type { Database, PageOptions, ReadOptions, ResultSet, Rows } from '../db/database.js';
import type { CursorHandOn, CursorScope } from '../runtime/heldReads.js';
import type { StatementKind } from '../sql/classify.js';
import { invalidParams, ToolError } from '../core/errors.js';
import { RESULT_CURSORS } from '../core/contract.js';
import { fromDriverError } from './dbErrors.js';
import type { ResultMask } from './privateColumns.js';
import { toResultSet } from './resultSet.js';
import { decidedAnswer, rowsHandedOn, type SizedAnswer, sizedAnswer } from './tokenBudget.js';
import type { CallContext } from './types.js';

/** The `cursor` argument of execute_query and browse_table. */
export const cursorProperty = {
  type: 'string',
  minLength: 1,
  maxLength: 1_024,
  description: `Reads on: a cut answer’s next_cursor (same snapshot, open ${RESULT_CURSORS.idleMs / 60_000} min after each page).`,
} as const;

/**
 * A read's answer: its result and, when it was cut and its engine holds reads, the cursor of its next
 * page; `decided`, its structured content as the token cut left it where the read was held.
 */
export type ReadAnswer = { result: ResultSet<Rows>; nextCursor?: string; decided?: Record<string, unknown> };

/** What a read's answer gives the client: the structured content decided at the read, else the result as read (sized on its way out). */
export const answerOf = (answer: ReadAnswer, kind: StatementKind, executionTimeMs: number): Record<string, unknown> =>
  answer.decided ?? withCursor(toResultSet(answer.result, kind, executionTimeMs), answer.nextCursor);

/**
 * The token cut of a held read's page (tokenBudget.ts, the one cut of every answer), decided where the
 * read is held, so that the next page starts right after the last row the client receives, whichever
 * cut (`max_rows`, `max_bytes`, `max_tokens`) left the rest out. The page is sized without a cursor when
 * the driver read it all; when rows remain, with the cursor its answer will carry, whose line counts too.
 */
class PageCut {
  readonly #budget: number;
  readonly #mask: ResultMask;
  readonly #signal: AbortSignal;
  readonly #started = performance.now();
  #sized: SizedAnswer | undefined;

  constructor({ budget, mask }: Sizing, signal: AbortSignal) {
    this.#budget = budget;
    this.#mask = mask;
    this.#signal = signal;
  }

  /** What masking or sizing a page threw: it hands on no row (the read ends) and is thrown once the driver is done (`settled`). */
  #failure: { error: unknown } | undefined;

  readonly handOn: CursorHandOn = async (page, more, cursor) => {
    try {
      const structured = toResultSet({ ...page, ...this.#mask(page.columns, page.rows) }, 'read', performance.now() - this.#started);
      let sized = more ? undefined : await sizedAnswer(structured, this.#budget, this.#signal);
      if (sized === undefined || rowsHandedOn(sized) < page.rows.length) sized = await sizedAnswer(withCursor(structured, cursor), this.#budget, this.#signal);
      this.#sized = sized;
      return rowsHandedOn(sized);
    } catch (error) {
      // Thrown inside a driver, a refusal (a private column the mask cannot place) would come out as the driver's failure.
      this.#failure = { error };
      return 0;
    }
  };

  /** Throws what `handOn` caught, as it was thrown. */
  settled(): void {
    if (this.#failure) throw this.#failure.error;
  }

  /** The answer of `result`: its cut decided here when it agrees with the read's end (a page that handed on no row is not held). */
  answered(result: ResultSet<Rows>, nextCursor: string | undefined): ReadAnswer {
    const sized = this.#sized;
    const agrees = sized !== undefined && sized.structured.next_cursor === nextCursor;
    return { result, ...(nextCursor === undefined ? {} : { nextCursor }), ...(agrees ? { decided: decidedAnswer(sized) } : {}) };
  }
}

/** How a read's answer is sized: its token budget (`max_tokens`), and the mask of its private columns, applied first. */
export type Sizing = { budget: number; mask: ResultMask };

/**
 * Runs one read. Where the engine holds reads (`Database.holdRead`), a read cut by its rows, bytes or
 * tokens (`sizing`) stays open behind a cursor for `scope`, its next page starting after the rows the
 * answer holds; `statement` is what a call that reads on may repeat (the SQL, or browse_table's
 * selection). Elsewhere the read runs as always, its text cut on its way out, and its cut answer has no cursor.
 */
export async function readHeld(
  ctx: CallContext,
  db: Database,
  scope: CursorScope,
  statement: string,
  sql: string,
  options: ReadOptions,
  sizing: Sizing,
): Promise<ReadAnswer> {
  if (!db.holdRead) return { result: await db.read(sql, options) };
  const cut = new PageCut(sizing, ctx.signal);
  const reserved = ctx.heldReads.reserve(scope, statement, sizing.mask);
  try {
    const { result, rest } = await db.holdRead(sql, { ...options, handOn: (page, more) => cut.handOn(page, more, reserved.cursor) });
    cut.settled();
    return cut.answered(result, rest ? await ctx.heldReads.hold(reserved, rest, db.sessions) : undefined);
  } finally {
    // Held, the cursor is the read's; else its key is free again.
    ctx.heldReads.unused(reserved);
  }
}

/**
 * The next page of the read `cursor` names, as the tool's answer within `budget` tokens: `statement`,
 * when the call repeats it, must be the one the cursor reads on. A driver's failure ends the read and is
 * the tool error it maps to.
 */
export async function readOn(ctx: CallContext, scope: CursorScope, cursor: string, statement: string | undefined, options: PageOptions, budget: number) {
  const started = performance.now();
  ctx.progress(0.3, 1, 'Reading on');
  // The held read masks each page as the first was (HeldReads.reserve), before this cut counts it.
  const cut = new PageCut({ budget, mask: (columns, rows) => ({ columns, rows }) }, ctx.signal);
  const page = await ctx.heldReads.next(scope, cursor, statement, options, cut.handOn).catch((error: unknown) => {
    throw fromDriverError(error);
  });
  cut.settled();
  const answer = cut.answered(page.result, page.nextCursor);
  ctx.progress(1, 1, `${(answer.decided?.row_count as number | undefined) ?? page.result.rows.length} row(s)`);
  return answerOf(answer, 'read', performance.now() - started);
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
