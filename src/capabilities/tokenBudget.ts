import { Buffer } from 'node:buffer';
import { JsonRows, valuesOf } from '../db/database.js';
import { jsonRowsPrefix } from '../db/results/jsonRowSpans.js';
import { rowText } from '../db/results/valueText.js';
import { RESULTS } from '../core/contract.js';
import { linesWithin, tokensOf } from '../core/tokenCount.js';
import { nextTurn } from '../core/nextTurn.js';
import { RawJson } from '../protocol/rawJson.js';
import { fenced } from './dataFence.js';
import { partCutNote, rowsCutNote, valuesCutNote } from './cutNote.js';
import { resultContentText, resultText } from './resultText.js';

/** The `max_tokens` argument of every tool that returns rows: one object, shared, so that tools/list stays small. */
export const maxTokensProperty = {
  type: 'integer',
  minimum: RESULTS.minTokens,
  maximum: RESULTS.capTokens,
  default: RESULTS.defaultTokens,
  description: 'Token budget of the text.',
} as const;

/** A tool's answer sized for the model: `structured` (a row answer's rows cut with its text), its text, and the note when cut. */
export type SizedAnswer = { structured: Record<string, unknown>; text: string | RawJson; note?: string };

/** The budget a call asked for (`max_tokens`), else the default. */
export const tokenBudgetOf = (args: Record<string, unknown>): number =>
  typeof args.max_tokens === 'number' ? args.max_tokens : RESULTS.defaultTokens;

/** Tokens the fence and the longest note take, kept free of the data. */
function reserveFor(budget: number): number {
  const notes = [rowsCutNote(RESULTS.maxRows, budget, true), valuesCutNote(budget, true, true), partCutNote(RESULTS.catalogRows, RESULTS.catalogRows, 'entries', budget)];
  return Math.max(...notes.map((note) => tokensOf(fenced('', note)))) + 2;
}

/** Answers sized where their read stays open (readOn.ts: the cut decides where the next page starts), by their structured content. */
const decided = new WeakMap<object, SizedAnswer>();

/** `sized`'s structured content, remembered as sized: `sizedAnswer` of it is `sized` itself, not a second cut. */
export function decidedAnswer(sized: SizedAnswer): Record<string, unknown> {
  decided.set(sized.structured, sized);
  return sized.structured;
}

/** Rows a sized result set hands on. */
export const rowsHandedOn = (sized: SizedAnswer): number => sized.structured.row_count as number;

/**
 * `structured`'s text within `budget` tokens (o200k_base), fence and note included (an answer sized
 * already, `decidedAnswer`, is taken as it was). A text of no more
 * bytes than the budget fits without counting (a token is at least one byte). A result set keeps the
 * rows that fit, cut at a row boundary, in its text and in `structuredContent` alike (`row_count`,
 * `is_truncated`, `truncated_reason: max_tokens`); any other answer keeps the lines that fit.
 */
export async function sizedAnswer(structured: Record<string, unknown>, budget: number, signal?: AbortSignal): Promise<SizedAnswer> {
  const already = decided.get(structured);
  if (already) return already;
  const reserve = reserveFor(budget);
  const rows = structured.rows;
  // A result set (resultSet.ts: it has the fields a cut sets); a plan's rows (explain_query) are cut as lines.
  const isResultSet = Array.isArray(structured.columns) && 'row_count' in structured && 'truncated_reason' in structured;
  // Rows the driver did not write as lines are rendered here, in slices: all 16 MiB of them in one turn took 34 ms.
  if (isResultSet && Array.isArray(rows) && linesLongerThan(rows, budget)) return sizedRows(structured, rows, budget, reserve, signal);
  const text = resultContentText(structured);
  const written = text instanceof RawJson ? text.text : text;
  // Bytes are at least the characters: a long text is not measured (a 16 MiB answer's would be flattened and scanned in one turn).
  if (written.length + reserve <= budget && Buffer.byteLength(written) + reserve <= budget) return { structured, text };
  if (isResultSet && (Array.isArray(rows) || rows instanceof JsonRows)) {
    return sizedRows(structured, rows, budget, reserve, signal);
  }
  return sizedLines(structured, typeof text === 'string' ? text : resultText(structured), budget, reserve, signal);
}

/** Whether the text lines of `rows` are longer than `chars` in all, rendered only until they are. */
function linesLongerThan(rows: unknown[], chars: number): boolean {
  let length = 0;
  for (const row of rows) {
    length += (Array.isArray(row) ? rowText(row).length : 0) + 1;
    if (length > chars) return true;
  }
  return false;
}

/** The lines of `text` (`structured`'s) that fit, and the note when some do not. */
async function sizedLines(structured: Record<string, unknown>, text: string, budget: number, reserve: number, signal?: AbortSignal): Promise<SizedAnswer> {
  const lines = text.split('\n');
  const fit = await linesWithin(lines, Math.max(0, budget - reserve), signal);
  if (fit.lines === lines.length) return { structured, text };
  return { structured, text: lines.slice(0, fit.lines).join('\n'), note: partCutNote(fit.lines, lines.length, 'lines', budget) };
}

/**
 * Database text (a prompt's schema) within `budget` tokens, fence and note included, when the words
 * around it take `taken`: the lines that fit, and the note when cut.
 */
export async function sizedData(data: string, budget: number, taken: number, signal?: AbortSignal): Promise<{ text: string; note?: string }> {
  const room = budget - taken - reserveFor(budget);
  if (Buffer.byteLength(data) <= room) return { text: data };
  const lines = data.split('\n');
  const fit = await linesWithin(lines, Math.max(0, room), signal);
  if (fit.lines === lines.length) return { text: data };
  return { text: lines.slice(0, fit.lines).join('\n'), note: partCutNote(fit.lines, lines.length, 'lines', budget) };
}

/** A resource's body as JSON text within `budget` tokens: its longest list cut to the items that fit, and the note when it was. */
export async function sizedBody(body: unknown, budget: number, signal?: AbortSignal): Promise<{ text: string; note?: string }> {
  const text = JSON.stringify(body);
  const reserve = reserveFor(budget);
  if (Buffer.byteLength(text) + reserve <= budget || typeof body !== 'object' || body === null) return { text };
  const record = body as Record<string, unknown>;
  const lists = Object.keys(record).filter((key) => Array.isArray(record[key]));
  const longest = lists.sort((a, b) => (record[b] as unknown[]).length - (record[a] as unknown[]).length)[0];
  if (longest === undefined) return { text };
  const items = record[longest] as unknown[];
  const frame = tokensOf(JSON.stringify({ ...record, [longest]: [] }));
  const fit = await linesWithin(mapped(items, (item) => JSON.stringify(item)), Math.max(0, budget - reserve - frame), signal);
  if (fit.lines === items.length) return { text };
  return { text: JSON.stringify({ ...record, [longest]: items.slice(0, fit.lines) }), note: partCutNote(fit.lines, items.length, longest, budget) };
}

async function sizedRows(
  structured: Record<string, unknown>,
  rows: unknown[][] | JsonRows,
  budget: number,
  reserve: number,
  signal?: AbortSignal,
): Promise<SizedAnswer> {
  const cutFields = { is_truncated: true, truncated_reason: 'max_tokens' };
  // The header and the fields, counted like the rows (a header of thousands of long names is long).
  const frameLines = resultText({ ...structured, rows: [], ...cutFields }).split('\n');
  const frameFit = await linesWithin(frameLines, Math.max(0, budget - reserve), signal);
  if (frameFit.lines < frameLines.length) {
    // Not even the header and the fields fit: no row, and the lines that fit.
    const none = { ...structured, rows: [], row_count: 0, ...cutFields };
    return sizedLines(none, resultText(none), budget, reserve, signal);
  }
  const frame = frameFit.tokens;
  const written = rows instanceof JsonRows && rows.lines !== undefined ? writtenLines(rows.pieces?.lines ?? [rows.lines]) : undefined;
  const values = written ? undefined : valuesOf(rows);
  const ends: WrittenLine[] = [];
  const lines = written ? mapped(written, (w) => (ends.push(w), w.line)) : mapped(values ?? [], rowText);
  const room = Math.max(0, budget - reserve - frame);
  const fit = await linesWithin(lines, room, signal);
  const total = rows.length;
  if (fit.lines >= total) return { structured, text: resultContentText(structured) };
  const hasCursor = typeof structured.next_cursor === 'string';
  if (fit.lines === 0) {
    // The first row alone is past the budget: it comes with its longest values cut, as max_bytes does.
    const first = values ? values[0]! : (JSON.parse(jsonRowsPrefix(rows as JsonRows, 1)) as unknown[][])[0]!;
    const shortened = await firstRowWithin(first, room, signal);
    if (shortened) {
      const cut = { ...structured, rows: [shortened], row_count: 1, ...cutFields, cells_truncated: markedValues([shortened]) };
      return { structured: cut, text: resultContentText(cut), note: valuesCutNote(budget, total > 1, hasCursor) };
    }
  }
  let kept: unknown[][] | JsonRows;
  if (values) kept = values.slice(0, fit.lines);
  else {
    const json = rows as JsonRows & { lines: string };
    kept = new JsonRows(jsonRowsPrefix(json, fit.lines), fit.lines, keptLines(json.pieces?.lines ?? [json.lines], ends[fit.lines - 1]));
  }
  const cut = { ...structured, rows: kept, row_count: fit.lines, ...cutFields, ...cellsCutIn(structured, kept) };
  return { structured: cut, text: resultContentText(cut), note: rowsCutNote(fit.lines, budget, hasCursor) };
}

/** `cells_truncated` of the rows kept, when the answer had cut values. */
const cellsCutIn = (structured: Record<string, unknown>, kept: unknown[][] | JsonRows): { cells_truncated?: number } =>
  typeof structured.cells_truncated === 'number' && structured.cells_truncated > 0 ? { cells_truncated: markedValues(valuesOf(kept)) } : {};

/** The values of `rows` that end in the cut marker. */
function markedValues(rows: unknown[][]): number {
  let count = 0;
  for (const row of rows) for (const value of row) if (typeof value === 'string' && CUT_MARKER.test(value)) count++;
  return count;
}

/** A value's cut marker (db/results/resultBudget.js), which says how long the value was. */
const CUT_MARKER = /…\[cut: \d+ (characters|bytes) in all\]$/u;

/**
 * `row` with its longest values cut in half, one at a time, each ending in the value marker (a value cut
 * before keeps its marker, which gives its whole length), until its line fits `budget` tokens; undefined
 * when no value is long enough to cut (a row of many short values).
 */
async function firstRowWithin(row: unknown[], budget: number, signal?: AbortSignal): Promise<unknown[] | undefined> {
  const current = [...row];
  for (;;) {
    if ((await linesWithin([rowText(current)], budget, signal)).lines === 1) return current;
    const texts = current.map((value) => (typeof value === 'string' ? value : typeof value === 'object' && value !== null ? JSON.stringify(value) : ''));
    const longest = texts.reduce((best, text, i) => (text.length > texts[best]!.length ? i : best), 0);
    const text = texts[longest]!;
    const marker = CUT_MARKER.exec(text)?.[0];
    const whole = marker ? text.slice(0, -marker.length) : text;
    if (whole.length < 64) return undefined;
    let keep = Math.floor(whole.length / 2);
    const code = whole.charCodeAt(keep - 1);
    if (code >= 0xd800 && code <= 0xdbff) keep -= 1;
    current[longest] = whole.slice(0, keep) + (marker ?? `…[cut: ${text.length} characters in all]`);
    // Each count holds the loop a few ms at most; many of them in a row would add up.
    await nextTurn();
  }
}

function* mapped<T>(items: Iterable<T>, each: (item: T) => string): Generator<string> {
  for (const item of items) yield each(item);
}

/** A written line, unescaped, and where it ends: in which piece, at which index. */
type WrittenLine = { line: string; piece: number; end: number };

/** The lines of JSON string literals' insides (a driver's written row lines, in pieces), unescaped one at a time. */
function* writtenLines(pieces: readonly string[]): Generator<WrittenLine> {
  for (const [piece, literal] of pieces.entries()) {
    let start = 0;
    let at = literal.indexOf('\\');
    while (at !== -1) {
      if (literal.charCodeAt(at + 1) === 0x6e /* n */) {
        yield { line: JSON.parse(`"${literal.slice(start, at)}"`) as string, piece, end: at };
        start = at + 2;
      }
      at = literal.indexOf('\\', at + 2);
    }
    yield { line: JSON.parse(`"${literal.slice(start)}"`) as string, piece, end: literal.length };
  }
}

/** The written lines up to the end of `last` (none without it), still escaped. */
function keptLines(pieces: readonly string[], last: WrittenLine | undefined): string {
  if (!last) return '';
  return [...pieces.slice(0, last.piece), (pieces[last.piece] as string).slice(0, last.end)].join('\\n');
}
