// How a write's confirmation shows its bound values and its preview, in words: the same on the console
// page (served at /core/statementText.js), in `sluice approvals` and in the elicitation message.

import { visibleLines, visibleText } from './visibleText.js';

/**
 * The placeholder a value is bound to, as the statement marks it: `$1`, or the first `?` (`?1`).
 * @param {string} placeholders `numbered` or `positional`
 * @param {number} index from 0
 * @returns {string}
 */
export function placeholderOf(placeholders, index) {
  return placeholders === 'numbered' ? `$${index + 1}` : `?${index + 1}`;
}

/**
 * A bound value's type as the client sent it: string, integer, number, boolean or null.
 * @param {unknown} value
 * @returns {string}
 */
export function valueType(value) {
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * A bound value on one line: a string in double quotes (so that its spaces show), every invisible
 * character escaped; other values as JSON writes them.
 * @param {unknown} value
 * @returns {string}
 */
export function valueText(value) {
  return typeof value === 'string' ? `"${visibleText(value)}"` : visibleText(String(JSON.stringify(value)));
}

/**
 * What a write would change, in words: `3 rows will change (tried, then rolled back)` when it was tried;
 * else the estimate, `about 3 rows (estimate: counted)` or `no estimate (why)`, and why it was not
 * tried (`; not tried: why`).
 * @param {{ rows: number, basis: 'exact' } | ({ rows: number, basis: string } | { rows: null, reason: string }) & { notExact?: string }} effect
 * @returns {string}
 */
export function effectText(effect) {
  const rows = (/** @type {number} */ n) => `${n} ${n === 1 ? 'row' : 'rows'}`;
  if ('basis' in effect && effect.basis === 'exact') return `${rows(effect.rows)} will change (tried, then rolled back)`;
  const estimate =
    effect.rows === null
      ? `no estimate (${visibleText(/** @type {{ reason: string }} */ (effect).reason)})`
      : `about ${rows(effect.rows)} (estimate: ${/** @type {{ basis: string }} */ (effect).basis})`;
  const notExact = /** @type {{ notExact?: string }} */ (effect).notExact;
  return notExact === undefined ? estimate : `${estimate}; not tried: ${visibleText(notExact)}`;
}

/**
 * Whether a write can be taken back once it ran, in words: the same in the console's dialog, `sluice
 * approvals` and the elicitation message.
 * @param {{ possible: true } | { possible: false, why: string }} undo
 * @returns {string}
 */
export function undoText(undo) {
  return 'why' in undo ? `cannot be undone: ${visibleText(undo.why)}` : 'can be undone once it ran (sluice undo, or Undo in the console’s activity)';
}

/**
 * The cells of a row after a write that differ from the row before it (all of them for a row it adds or
 * deletes), by position: the ones a dialog marks.
 * @param {{ before: unknown[] | null, after: unknown[] | null }} change
 * @returns {boolean[]}
 */
export function changedCells(change) {
  const { before, after } = change;
  const width = (before ?? after ?? []).length;
  return Array.from({ length: width }, (_, i) => !before || !after || JSON.stringify(before[i]) !== JSON.stringify(after[i]));
}

/** What the marks of `changesTableLines` mean. */
export const CHANGES_LEGEND = 'Changed rows (- before, + after, * a value that changes)';

/**
 * A tried write's changed rows as a text table: a header of column names, then for each row its line
 * before (`-`) and after (`+`), cells as `valueText` writes them, each changed cell of the line after
 * marked with a `*`; `and N more rows` when not all are shown.
 * @param {{ rows: number, columns: string[], changes: { before: unknown[] | null, after: unknown[] | null }[] }} effect
 * @returns {string[]}
 */
export function changesTableLines(effect) {
  const header = ['', ...effect.columns.map((name) => visibleText(name))];
  const lines = effect.changes.flatMap((change) => {
    const changed = changedCells(change);
    return [
      ...(change.before ? [['-', ...change.before.map(valueText)]] : []),
      ...(change.after ? [['+', ...change.after.map((value, i) => `${valueText(value)}${change.before && changed[i] ? '*' : ''}`)]] : []),
    ];
  });
  const widths = header.map((name, i) => Math.max([...name].length, ...lines.map((row) => [...(row[i] ?? '')].length)));
  const line = (/** @type {string[]} */ row) => row.map((cell, i) => cell + ' '.repeat((widths[i] ?? 0) - [...cell].length)).join(' | ').trimEnd();
  const more = effect.rows - effect.changes.length;
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-+-'), ...lines.map(line), ...(more > 0 ? [`and ${more} more ${more === 1 ? 'row' : 'rows'}`] : [])];
}

/**
 * A statement as numbered lines of text (`  1 | UPDATE …`), every invisible character escaped: for a
 * terminal and for a client's own dialog, where no marking is possible.
 * @param {string} statement
 * @returns {string[]}
 */
export function numberedLines(statement) {
  const lines = visibleLines(statement);
  const width = String(lines.length).length;
  return lines.map((pieces, i) => `${String(i + 1).padStart(width)} | ${pieces.map((p) => p.text).join('')}`);
}

/**
 * Rows a write would add, as a text table (a header of column names, then one line per row shown, cells
 * as `valueText` writes them, padded into columns), and `and N more rows` when not all are shown.
 * @param {{ columns: string[], shown: unknown[][], total: number }} preview
 * @returns {string[]}
 */
export function rowsTableLines(preview) {
  const header = preview.columns.map((name) => visibleText(name));
  const cells = preview.shown.map((row) => row.map(valueText));
  const widths = header.map((name, i) => Math.max([...name].length, ...cells.map((row) => [...(row[i] ?? '')].length)));
  const line = (/** @type {string[]} */ row) => row.map((cell, i) => cell + ' '.repeat((widths[i] ?? 0) - [...cell].length)).join(' | ').trimEnd();
  const more = preview.total - preview.shown.length;
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-+-'), ...cells.map(line), ...(more > 0 ? [`and ${more} more ${more === 1 ? 'row' : 'rows'}`] : [])];
}

/**
 * Where an export writes, in words: `a new CSV file /path`, or `CSV, replacing the file /path`.
 * @param {{ path: string, format: string, replaces: boolean }} destination
 * @returns {string}
 */
export function destinationText(destination) {
  const format = destination.format.toUpperCase();
  const path = visibleText(destination.path);
  return destination.replaces ? `${format}, replacing the file ${path}` : `a new ${format} file ${path}`;
}
