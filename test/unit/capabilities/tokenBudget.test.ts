import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { howToReadOn, rowsCutNote, valuesCutNote } from '../../../src/capabilities/cutNote.js';
import { sizedAnswer, sizedBody, sizedData } from '../../../src/capabilities/tokenBudget.js';
import { jsonRowsFrom, jsonRowsPrefix } from '../../../src/db/results/jsonRowSpans.js';
import { resultText } from '../../../src/capabilities/resultText.js';
import { fenced } from '../../../src/capabilities/dataFence.js';
import { JsonRows } from '../../../src/db/database.js';
import { rowText } from '../../../src/db/results/valueText.js';
import { RawJson, toJsonText } from '../../../src/protocol/rawJson.js';
import { worstLoopDelay } from '../../helpers/loopDelay.js';

/** Rows with values that are hard to cut by hand: brackets and quotes in strings, JSON values, line breaks. */
const ROWS = Array.from({ length: 400 }, (_, i) => [i, `a "quoted" ] [ value\\ number ${i}`, { nested: [i, [i]] }, `two\nlines ${i}`]);
const COLUMNS = [{ name: 'id', type: 'int' }, { name: 's', type: 'text' }, { name: 'j', type: 'json' }, { name: 'm', type: 'text' }];
const written = () => new JsonRows(JSON.stringify(ROWS), ROWS.length, JSON.stringify(ROWS.map(rowText).join('\n')).slice(1, -1));
/** The same, made as a driver makes it: in pieces of 7 rows (`answerRows`, the SQLite query process's chunks). */
const writtenInPieces = () => {
  const pieces = Array.from({ length: Math.ceil(ROWS.length / 7) }, (_, i) => ROWS.slice(i * 7, i * 7 + 7));
  const lines = pieces.map((piece) => JSON.stringify(piece.map(rowText).join('\n')).slice(1, -1));
  return JsonRows.joined(pieces.map((piece) => JSON.stringify(piece).slice(1, -1)), lines, ROWS.length);
};
const structured = (rows: unknown) => ({ columns: COLUMNS, rows, row_count: ROWS.length, is_truncated: false, truncated_reason: 'none', statement_kind: 'read' });

/** The text as the client reads it. */
const textOf = (text: string | RawJson) => (text instanceof RawJson ? (JSON.parse(toJsonText(text)) as string) : text);

describe('sizedAnswer', () => {
  it('cuts a row answer at a row boundary, its text and its rows alike, within the budget with fence and note', async () => {
    for (const rows of [ROWS, written(), writtenInPieces()]) {
      const sized = await sizedAnswer(structured(rows), 1_000);
      const kept = sized.structured.row_count as number;
      expect(kept).toBeGreaterThan(0);
      expect(sized.structured).toMatchObject({ is_truncated: true, truncated_reason: 'max_tokens' });
      const cutRows = sized.structured.rows instanceof JsonRows ? JSON.parse(sized.structured.rows.text) : sized.structured.rows;
      expect(cutRows).toEqual(ROWS.slice(0, kept));
      const text = textOf(sized.text);
      expect(text).toBe(resultText({ ...structured(ROWS.slice(0, kept)), row_count: kept, is_truncated: true, truncated_reason: 'max_tokens' }));
      expect(sized.note).toBe(rowsCutNote(kept, 1_000, false));
      expect(countTokens(fenced(text, sized.note))).toBeLessThanOrEqual(1_000);
    }
  });

  it('keeps no row, and the lines that fit, when not even the header fits', async () => {
    const columns = Array.from({ length: 400 }, (_, i) => ({ name: `a_rather_long_column_name_number_${i}`, type: 'int' }));
    const wide = { columns, rows: [columns.map((_, i) => i)], row_count: 1, is_truncated: false, truncated_reason: 'none' };
    const sized = await sizedAnswer(wide, 500);
    expect(sized.structured).toMatchObject({ rows: [], row_count: 0, is_truncated: true, truncated_reason: 'max_tokens' });
    const text = textOf(sized.text);
    expect(sized.note).toMatch(/^\[Cut to 500 tokens: \d+ of \d+ lines shown; more exist\./);
    expect(countTokens(fenced(text, sized.note))).toBeLessThanOrEqual(500);
  });

  it('a first row past the budget comes with its longest values cut, a value cut before keeping its length', async () => {
    const long = 'word '.repeat(20_000);
    const before = `${'x '.repeat(10_000)}…[cut: 99999 characters in all]`;
    for (const [rows, more] of [[[[1, long, before]], false], [[[1, long, before], [2, 'short', 'short']], true]] as const) {
      const sized = await sizedAnswer({ columns: COLUMNS.slice(0, 3), rows, row_count: rows.length, cells_truncated: 1, truncated_reason: 'cell_bytes' }, 1_000);
      expect(sized.structured).toMatchObject({ row_count: 1, cells_truncated: 2, is_truncated: true, truncated_reason: 'max_tokens' });
      const [row] = sized.structured.rows as unknown[][];
      expect(row![0]).toBe(1);
      expect(row![1]).toMatch(/^(word )+(word?|wor|wo|w)?…\[cut: 100000 characters in all\]$/);
      expect(row![2]).toMatch(/^(x )+x?…\[cut: 99999 characters in all\]$/);
      expect(sized.note).toBe(valuesCutNote(1_000, more, false));
      expect(countTokens(fenced(textOf(sized.text), sized.note))).toBeLessThanOrEqual(1_000);
    }
  });

  it('leaves an answer that fits as it is, uncounted when its bytes are fewer than the budget', async () => {
    const small = structured(ROWS.slice(0, 2));
    const sized = await sizedAnswer(small, 8_000);
    expect(sized).toEqual({ structured: small, text: resultText(small) });
  });

  it('cuts rows that are not a result set (a plan’s) as lines, its structuredContent as it was', async () => {
    const plan = { statement_kind: 'read', plan: 'SCAN t', columns: COLUMNS, rows: ROWS };
    const sized = await sizedAnswer(plan, 1_000);
    expect(sized.structured).toBe(plan);
    expect(sized.note).toMatch(/^\[Cut to 1000 tokens: \d+ of \d+ lines shown; more exist\./);
  });

  it('cuts any other answer at a line, saying how many of how many', async () => {
    const tables = { tables: Array.from({ length: 2_000 }, (_, i) => ({ schema: 'main', name: `table_number_${i}`, type: 'table' })) };
    const sized = await sizedAnswer(tables, 1_000);
    const text = textOf(sized.text);
    const total = resultText(tables).split('\n').length;
    expect(resultText(tables).startsWith(text)).toBe(true);
    expect(sized.note).toBe(`[Cut to 1000 tokens: ${text.split('\n').length} of ${total} lines shown; more exist. Narrow the call (a schema, a table, a pattern) to see the rest.]`);
    expect(countTokens(fenced(text, sized.note))).toBeLessThanOrEqual(1_000);
    expect(sized.structured).toBe(tables);
  });
});

describe('sizedAnswer and the event loop', () => {
  it('a first row of 16 values of 64 KiB, or a header of 2,000 long names, is sized without holding the loop 50 ms', async () => {
    const words = (i: number) => `value ${i} `.repeat(6_000).slice(0, 65_000);
    const heavyRow = { columns: COLUMNS.slice(0, 1), rows: [Array.from({ length: 16 }, (_, i) => words(i))], row_count: 1, is_truncated: false, truncated_reason: 'none' };
    const names = Array.from({ length: 2_000 }, (_, i) => ({ name: `column ${i} `.repeat(50), type: 'int' }));
    const wideHeader = { columns: names, rows: [names.map((_, i) => i)], row_count: 1, is_truncated: false, truncated_reason: 'none' };
    for (const answer of [heavyRow, wideHeader]) {
      let sized: Awaited<ReturnType<typeof sizedAnswer>> | undefined;
      const held = await worstLoopDelay(async () => {
        sized = await sizedAnswer(answer, 20_000);
      });
      expect(held).toBeLessThan(50);
      expect(countTokens(fenced(textOf(sized!.text), sized!.note))).toBeLessThanOrEqual(20_000);
    }
  });
});

describe('sizedBody and sizedData', () => {
  it('a resource body keeps the items of its longest list that fit, as JSON', async () => {
    const body = { name: 't', indexes: [], columns: Array.from({ length: 3_000 }, (_, i) => ({ name: `column_${i}`, type: 'integer' })) };
    const sized = await sizedBody(body, 2_000);
    const cut = JSON.parse(sized.text) as typeof body;
    expect(cut.columns).toEqual(body.columns.slice(0, cut.columns.length));
    expect(sized.note).toMatch(new RegExp(`^\\[Cut to 2000 tokens: ${cut.columns.length} of 3000 columns shown; more exist\\.`));
    expect(countTokens(fenced(sized.text, sized.note))).toBeLessThanOrEqual(2_000);
  });

  it('a prompt’s database text keeps the lines that fit beside the prompt’s own words', async () => {
    const data = Array.from({ length: 3_000 }, (_, i) => `  - column_${i} INTEGER NOT NULL`).join('\n');
    const sized = await sizedData(data, 2_000, 300);
    expect(data.startsWith(sized.text)).toBe(true);
    expect(countTokens(fenced(sized.text, sized.note))).toBeLessThanOrEqual(1_700);
    expect(await sizedData('  - id INTEGER', 2_000, 300)).toEqual({ text: '  - id INTEGER' });
  });
});

describe('the cut note', () => {
  it('names next_cursor when the answer has one, and max_tokens either way', () => {
    expect(howToReadOn(true)).toContain('call again with next_cursor');
    expect(howToReadOn(false)).not.toContain('next_cursor');
    for (const hasCursor of [true, false]) expect(howToReadOn(hasCursor)).toContain('raise max_tokens (at most 20000)');
  });
});

describe('jsonRowsPrefix and jsonRowsFrom', () => {
  /** `rows` as one text, and as pieces of 1, 2, … rows: the same rows whichever way they were made. */
  const made = (rows: unknown[][]) => {
    const pieces: unknown[][][] = [];
    for (let from = 0, size = 1; from < rows.length; from += size, size++) pieces.push(rows.slice(from, from + size));
    const inner = (piece: unknown[][]) => JSON.stringify(piece).slice(1, -1);
    const lines = (piece: unknown[][]) => JSON.stringify(piece.map((row) => row.join('\t')).join('\n')).slice(1, -1);
    return [new JsonRows(JSON.stringify(rows), rows.length), JsonRows.joined(pieces.map(inner), pieces.map(lines), rows.length)];
  };
  it('finds the end of the n-th row of JSON rows without parsing them', () => {
    for (const rows of made(ROWS)) {
      for (const count of [0, 1, 2, 17, 399, 400]) expect(JSON.parse(jsonRowsPrefix(rows, count))).toEqual(ROWS.slice(0, count));
    }
  });
  it('parses the rows from the n-th on, nested arrays, brackets and quotes in strings included', async () => {
    for (const rows of made(ROWS)) for (const from of [0, 1, 17, 399, 400]) expect(await jsonRowsFrom(rows, from)).toEqual(ROWS.slice(from));
    const odd = [[1, '[x]"\\', [2, [3]]], [null, { a: [4] }, ']'], ['"', '\\"[']];
    for (const rows of made(odd)) expect(await jsonRowsFrom(rows, 1)).toEqual(odd.slice(1));
  });
});
