// How one value of a result reads in the text a model gets (capabilities/resultText.ts), shared by the
// SQLite query process, which writes the row lines of its results beside their JSON, and the server, so
// that both write the same text. Plain JavaScript so the query process can load it. A value is written
// as its JSON shows it: what JSON cannot carry (NaN, Infinity) reads NULL, as it arrives.

// Characters that make a string ambiguous anywhere in it: a quote, a backslash, a control character
// (tabs and line breaks split cells and rows), and the line and paragraph separators.
// eslint-disable-next-line no-control-regex
const AMBIGUOUS_CHARACTER = /["\\\u0000-\u001f\u007f\u2028\u2029]/;

/**
 * Whether `code` is a character of JavaScript's `\s` (a test compares it with the regular expression
 * over every UTF-16 code unit).
 * @param {number} code
 */
function isSpace(code) {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0x1680) return code === 0xa0;
  return (
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * Whether a string would be ambiguous bare: empty, `NULL`, with a space at either edge, or holding an
 * ambiguous character. Such a string is written as a JSON string.
 * @param {string} text
 */
export function needsQuotes(text) {
  const length = text.length;
  if (length === 0 || isSpace(text.charCodeAt(0)) || isSpace(text.charCodeAt(length - 1))) return true;
  return text === 'NULL' || AMBIGUOUS_CHARACTER.test(text);
}

/**
 * One value as it reads in a table cell or after `key: `. A list of plain values reads inline, its items
 * separated by `, `; a record (a JSON column) keeps its JSON.
 * @param {unknown} value
 * @returns {string}
 */
export function valueText(value) {
  if (typeof value === 'string') return needsQuotes(value) ? JSON.stringify(value) : value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'NULL';
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value) && value.every(isPlain)) return listText(value);
  return JSON.stringify(value);
}

/** @param {unknown} value */
const isPlain = (value) => value === null || typeof value !== 'object';

/**
 * A list of plain values inline. An item holding a comma is quoted, so that the list splits one way only.
 * @param {unknown[]} items
 */
function listText(items) {
  const texts = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    texts[i] = typeof item === 'string' && item.includes(',') ? JSON.stringify(item) : valueText(item);
  }
  return texts.join(', ');
}

/**
 * One row of a table: its cells' text separated by tabs.
 * @param {readonly unknown[]} cells
 */
export function rowText(cells) {
  // Filled and joined: faster than `+=` (whose pieces the final join would flatten) or a map's callback.
  const texts = new Array(cells.length);
  for (let i = 0; i < cells.length; i++) texts[i] = valueText(cells[i]);
  return texts.join('\t');
}
