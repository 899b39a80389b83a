// Text a client sent, made safe to show to the person who must judge it: every character that is
// invisible, or that moves or hides other text, is shown as an escape (`⟨U+202E⟩`). The one rule for
// every place a client- or database-supplied string is shown: the console's pages (served at
// /core/visibleText.js), the command line's output, the elicitation message and the desktop notices.
// Plain JavaScript, typed by JSDoc, so that the browser loads the same file.

/**
 * Control characters (C0 but the line feed, DEL, C1), format characters (bidi embeddings, overrides and
 * isolates, zero-width characters, the soft hyphen, tag characters), lone surrogates, private use, the
 * line and paragraph separators, and characters that draw nothing (the combining grapheme joiner,
 * variation selectors, Hangul fillers).
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0]|\u034F|\p{Variation_Selector}/gu;
/** A line ends at CR LF, LF or a lone CR: PostgreSQL ends a `--` comment at a lone CR, so it must start a line here too. */
const LINE_END = /\r\n|\n|\r/;

/**
 * @typedef {{ text: string, escaped: boolean }} Piece
 * A run of text shown as it is, or one character shown as its escape (`escaped`).
 */

/**
 * The escape that shows one character: `⟨U+` and its code point in hex, at least four digits, `⟩`.
 * @param {string} character
 * @returns {string}
 */
export function escapeOf(character) {
  const code = character.codePointAt(0) ?? 0;
  return `⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/**
 * One line's pieces: runs of plain text and one piece per invisible character (line feeds included,
 * so a value shown on one line shows its newlines too).
 * @param {string} text
 * @returns {Piece[]}
 */
export function visiblePieces(text) {
  /** @type {Piece[]} */
  const pieces = [];
  let from = 0;
  for (const match of text.matchAll(INVISIBLE)) {
    if (match.index > from) pieces.push({ text: text.slice(from, match.index), escaped: false });
    pieces.push({ text: escapeOf(match[0]), escaped: true });
    from = match.index + match[0].length;
  }
  if (from < text.length) pieces.push({ text: text.slice(from), escaped: false });
  return pieces;
}

/**
 * A statement as numbered lines would show it: split at CR LF, LF and lone CR (a lone CR is also shown,
 * as `⟨U+000D⟩` at the end of its line, since engines disagree on it), each line's pieces.
 * @param {string} text
 * @returns {Piece[][]}
 */
export function visibleLines(text) {
  const parts = text.split(new RegExp(`(${LINE_END.source})`));
  /** @type {Piece[][]} */
  const lines = [];
  for (let i = 0; i < parts.length; i += 2) {
    const pieces = visiblePieces(parts[i] ?? '');
    if (parts[i + 1] === '\r') pieces.push({ text: escapeOf('\r'), escaped: true });
    lines.push(pieces);
  }
  return lines;
}

/**
 * Text on one line with every invisible character escaped, line ends included.
 * @param {string} text
 * @returns {string}
 */
export function visibleText(text) {
  return visiblePieces(text)
    .map((piece) => piece.text)
    .join('');
}

/**
 * A message of one or more lines as a terminal shows it: its line breaks kept (LF), every other
 * invisible character escaped (a lone CR as well, as in `visibleLines`).
 * @param {string} text
 * @returns {string}
 */
export function visibleLinesText(text) {
  return visibleLines(text)
    .map((pieces) => pieces.map((piece) => piece.text).join(''))
    .join('\n');
}

/**
 * JSON text whose invisible characters are written as `\uXXXX` escapes: the same value to a parser, but
 * nothing on a terminal is hidden, reordered or drawn over (`--json` output, `--log-requests` lines).
 * JSON.stringify already escapes C0 inside strings, so a line feed left here is the layout's own.
 * @param {string} json
 * @returns {string}
 */
export function jsonWithVisibleEscapes(json) {
  return json.replace(INVISIBLE, (character) =>
    character === '\n'
      ? character
      : Array.from({ length: character.length }, (_, i) => `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
}
