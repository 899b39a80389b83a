import { RESULTS } from '../core/contract.js';

/**
 * What an answer cut to its token budget says after its data (outside the fence): what it holds, that
 * more exists, and how to get it. The one place that tells how to read on, so that an answer with a
 * cursor names it.
 */

/** How to read past a cut row answer: the cursor when there is one, else a narrower statement or a larger budget. */
export function howToReadOn(hasCursor: boolean): string {
  const wider = `raise max_tokens (at most ${RESULTS.capTokens})`;
  return hasCursor
    ? `To read on, call again with next_cursor (the same result, not a re-run); or narrow it (fewer columns, a WHERE) or ${wider}.`
    : `To get more, narrow it (fewer columns, a WHERE or filter, a LIMIT/OFFSET or limit/offset) or ${wider}.`;
}

/** The note of a row answer cut at `budget` tokens, holding `rows` rows. */
export const rowsCutNote = (rows: number, budget: number, hasCursor: boolean): string =>
  `[Cut to ${budget} tokens: this answer holds ${rows} row(s); more exist. ${howToReadOn(hasCursor)}]`;

/** The note of a row answer whose first row fit only with its longest values cut; `more` when rows were left out too. */
export const valuesCutNote = (budget: number, more: boolean, hasCursor: boolean): string =>
  `[Cut to ${budget} tokens: this answer holds 1 row(s), its longest values cut (each ends in "…[cut: N characters in all]")${more ? `; more exist. ${howToReadOn(hasCursor)}` : `. To see them whole, raise max_tokens (at most ${RESULTS.capTokens}) or select less of each (substr, left).`}]`;

/** The note of any other answer (or resource body) cut at `budget` tokens: `shown` of its `total` lines (or items of a list, `unit`). */
export const partCutNote = (shown: number, total: number, unit: string, budget: number): string =>
  `[Cut to ${budget} tokens: ${shown} of ${total} ${unit} shown; more exist. Narrow the call (a schema, a table, a pattern) to see the rest.]`;
