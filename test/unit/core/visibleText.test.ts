import { describe, expect, it } from 'vitest';
import { escapeOf, jsonWithVisibleEscapes, visibleLines, visibleLinesText, visiblePieces, visibleText } from '../../../src/core/shared/visibleText.js';
import { requestLogLine } from '../../../src/http/requestLog.js';

const shown = (lines: { text: string }[][]) => lines.map((pieces) => pieces.map((p) => p.text).join(''));

describe('visibleText: the one rule for a string a client or a database supplied, wherever it is shown', () => {
  it('escapes C0 and C1 controls, DEL and tabs, but leaves printable text and spaces alone', () => {
    expect(visibleText('a\u0007b\tc\u007f\u0085\u009b d')).toBe('a⟨U+0007⟩b⟨U+0009⟩c⟨U+007F⟩⟨U+0085⟩⟨U+009B⟩ d');
    expect(visibleText("SELECT 'é', naïve, 東京 -- ok")).toBe("SELECT 'é', naïve, 東京 -- ok");
  });

  it('escapes every bidi embedding, override and isolate', () => {
    const bidi = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u061c'];
    expect(bidi.map(visibleText)).toEqual(['⟨U+202A⟩', '⟨U+202B⟩', '⟨U+202C⟩', '⟨U+202D⟩', '⟨U+202E⟩', '⟨U+2066⟩', '⟨U+2067⟩', '⟨U+2068⟩', '⟨U+2069⟩', '⟨U+061C⟩']);
  });

  it('escapes zero-width and other characters that draw nothing', () => {
    const hidden = ['\u200b', '\u200c', '\u200d', '\u200e', '\u200f', '\u2060', '\ufeff', '\u00ad', '\u2028', '\u2029', '\u034f', '\ufe0f', '\u3164'];
    expect(hidden.map(visibleText)).toEqual(hidden.map((c) => escapeOf(c)));
    expect(escapeOf('\u200b')).toBe('⟨U+200B⟩');
    // Tag characters (outside the BMP) spell hidden ASCII.
    expect(visibleText('x\u{E0041}\u{E0042}')).toBe('x⟨U+E0041⟩⟨U+E0042⟩');
  });

  it('escapes lone surrogates, never a pair', () => {
    expect(visibleText('a\ud800b\udc00c')).toBe('a⟨U+D800⟩b⟨U+DC00⟩c');
    expect(visibleText('🙂')).toBe('🙂');
  });

  it('marks each escape as escaped, and plain runs as plain', () => {
    expect(visiblePieces('ab\u202ecd')).toEqual([
      { text: 'ab', escaped: false },
      { text: '⟨U+202E⟩', escaped: true },
      { text: 'cd', escaped: false },
    ]);
    expect(visiblePieces('')).toEqual([]);
  });

  it('on one line, line ends are escapes too', () => {
    expect(visibleText('a\nb\r\nc\rd')).toBe('a⟨U+000A⟩b⟨U+000D⟩⟨U+000A⟩c⟨U+000D⟩d');
  });

  it('splits lines at LF, CR LF and a lone CR, which stays visible', () => {
    expect(shown(visibleLines('UPDATE t\nSET a = 1\r\nWHERE b -- note\rOR true'))).toEqual([
      'UPDATE t',
      'SET a = 1',
      'WHERE b -- note⟨U+000D⟩',
      'OR true',
    ]);
    expect(shown(visibleLines(''))).toEqual(['']);
    expect(shown(visibleLines('a\n'))).toEqual(['a', '']);
    expect(shown(visibleLines('\n\n'))).toEqual(['', '', '']);
  });

  it('neutralises a terminal escape sequence: ESC (and the C1 CSI) never stays raw', () => {
    expect(visibleText('name\u001b[2J\u001b]0;title\u0007\u009b31m')).toBe('name⟨U+001B⟩[2J⟨U+001B⟩]0;title⟨U+0007⟩⟨U+009B⟩31m');
  });

  it('a message of several lines keeps its line feeds and escapes the rest, a lone CR included', () => {
    expect(visibleLinesText('first\u202E line\r\nsecond\u001b[1m\rthird\n')).toBe('first⟨U+202E⟩ line\nsecond⟨U+001B⟩[1m⟨U+000D⟩\nthird\n');
    expect(visibleLinesText('plain')).toBe('plain');
  });

  it('JSON for a terminal (--json, --log-requests): the same value to a parser, nothing invisible left raw', () => {
    const value = { name: 'a\u202Eevil\u200Bx\u{E0041}\u0085', note: 'line\nfeed', nested: [{ k: '\u2066\u00AD' }] };
    const json = jsonWithVisibleEscapes(JSON.stringify(value, null, 2));
    expect(JSON.parse(json)).toEqual(value);
    expect(json).toContain('a\\u202eevil\\u200bx\\udb40\\udc41\\u0085');
    // Only the layout's own line feeds remain of every character the rule escapes.
    expect(visibleText(json.replaceAll('\n', ''))).toBe(json.replaceAll('\n', ''));
    expect(json.split('\n')).toHaveLength(JSON.stringify(value, null, 2).split('\n').length);
  });

  it('a request log line shows a client name with a bidi override as an escape', () => {
    const line = requestLogLine({ id: 1, method: 'tools/call', clientName: 'Good\u202Eevil', principalId: undefined, status: 200, errorCode: undefined, durationMs: 1, trace: {} }, new Date(0));
    expect(line).toContain('"client":"Good\\u202eevil"');
    expect(JSON.parse(line).client).toBe('Good\u202Eevil');
  });
});
