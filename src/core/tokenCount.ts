import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { RESULTS } from './contract.js';
import { nextTurn } from './nextTurn.js';

/**
 * Tokens of text as a model counts them: o200k_base (GPT-4o's; other models' tokenizers differ by a few
 * per cent), the encoding the bench uses. Loading its ranks takes about 170 ms, once, when this module is
 * imported at start; no request waits for it.
 */
export const tokensOf = (text: string): number => countTokens(text);

/** Characters counted at once: a longer line is counted in pieces, so that no single count blocks for long. */
const PIECE = 16_384;

/**
 * How many of `lines`, joined by line breaks, fit in `budget` tokens, and the tokens they take. Each line
 * counts its own tokens and one for its line break (the whole text's count, within a token or two, and
 * never less in practice: a break merges with its neighbours at most); a line longer than PIECE is
 * counted in pieces, one more token per seam. Counting stops at the first line that does not fit, and
 * gives the event loop a turn after each `RESULTS.tokenSliceMs` of work, so that a megabyte of text
 * never blocks it. `lines` is iterated lazily: lines past the cut are never made.
 */
export async function linesWithin(
  lines: Iterable<string>,
  budget: number,
  signal?: AbortSignal,
): Promise<{ lines: number; tokens: number }> {
  let kept = 0;
  let tokens = 0;
  let sliceStart = performance.now();
  const pause = async () => {
    if (performance.now() - sliceStart < RESULTS.tokenSliceMs) return;
    await nextTurn();
    signal?.throwIfAborted();
    sliceStart = performance.now();
  };
  for (const line of lines) {
    let lineTokens = 1;
    for (let start = 0; start < line.length; ) {
      let end = Math.min(line.length, start + PIECE);
      // Never split a surrogate pair.
      const code = line.charCodeAt(end - 1);
      if (end < line.length && code >= 0xd800 && code <= 0xdbff) end -= 1;
      lineTokens += countTokens(line.slice(start, end)) + (start > 0 ? 1 : 0);
      start = end;
      if (tokens + lineTokens > budget) return { lines: kept, tokens };
      await pause();
    }
    if (tokens + lineTokens > budget) return { lines: kept, tokens };
    tokens += lineTokens;
    kept += 1;
    await pause();
  }
  return { lines: kept, tokens };
}
