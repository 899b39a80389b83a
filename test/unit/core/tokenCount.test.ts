import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { linesWithin } from '../../../src/core/tokenCount.js';
import { worstLoopDelay } from '../../helpers/loopDelay.js';

/** About 1 MiB of row lines, as an answer's text holds them. */
const row = (i: number) => `${i}\tAlice Example ${i}\talice${i}@example.com\t2024-01-${(i % 28) + 1}\t${(i * 3.7).toFixed(2)}\tsome note about row ${i}`;
const MIB_OF_LINES = Array.from({ length: 12_500 }, (_, i) => row(i));

describe('linesWithin: lines that fit a token budget, counted without blocking the loop', () => {
  it('counts what the whole text counts, within a token per line, never less', async () => {
    const lines = MIB_OF_LINES.slice(0, 2_000);
    const { lines: kept, tokens } = await linesWithin(lines, Number.MAX_SAFE_INTEGER);
    expect(kept).toBe(2_000);
    const whole = countTokens(lines.join('\n'));
    expect(tokens).toBeGreaterThanOrEqual(whole);
    expect(tokens - whole).toBeLessThanOrEqual(2_000);
  });

  it('stops at the first line that does not fit: what it keeps, joined, is within the budget', async () => {
    for (const budget of [500, 8_000, 20_000]) {
      const { lines: kept, tokens } = await linesWithin(MIB_OF_LINES, budget);
      expect(tokens).toBeLessThanOrEqual(budget);
      expect(countTokens(MIB_OF_LINES.slice(0, kept).join('\n'))).toBeLessThanOrEqual(budget);
      expect(countTokens(MIB_OF_LINES.slice(0, kept + 1).join('\n'))).toBeGreaterThan(budget - 40);
    }
  });

  it('a line longer than a piece is counted in pieces, a surrogate pair never split', async () => {
    const line = '🙂 word '.repeat(20_000);
    const { lines: kept, tokens } = await linesWithin([line], Number.MAX_SAFE_INTEGER);
    expect(kept).toBe(1);
    expect(tokens).toBeGreaterThanOrEqual(countTokens(line));
    expect(tokens).toBeLessThanOrEqual(countTokens(line) + 20);
    expect((await linesWithin([line], 100)).lines).toBe(0);
  });

  it('counting 1 MiB of lines, or one line of 1 MiB, never blocks the event loop for 50 ms', async () => {
    expect(MIB_OF_LINES.join('\n').length).toBeGreaterThan(1 << 20);
    let counted = 0;
    const delays = [
      await worstLoopDelay(async () => {
        counted = (await linesWithin(MIB_OF_LINES, Number.MAX_SAFE_INTEGER)).lines;
      }),
      await worstLoopDelay(() => linesWithin([MIB_OF_LINES.join('\t')], Number.MAX_SAFE_INTEGER)),
    ];
    expect(counted).toBe(MIB_OF_LINES.length);
    console.log(`worst loop delay counting 1 MiB: ${delays.map((d) => d.toFixed(1)).join(' / ')} ms`);
    for (const delay of delays) expect(delay).toBeLessThan(50);
  });

  it('stops when the request is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(linesWithin(MIB_OF_LINES, Number.MAX_SAFE_INTEGER, controller.signal)).rejects.toThrow();
  });
});
