import { describe, expect, it } from 'vitest';
import { textTable } from '../../../src/cli/textTable.js';

describe('textTable: the command line’s tables', () => {
  it('pads each column to its widest cell, two spaces apart, with no trailing space', () => {
    expect(textTable([['ID', 'NAME'], ['tok_1', 'a'], ['t', 'longer']])).toBe(['ID     NAME', 'tok_1  a', 't      longer'].join('\n'));
  });

  it('shows every cell by the one rule: ESC, bidi, zero-width, tag characters and line breaks as escapes, widths counted on what is shown', () => {
    const table = textTable([['NAME', 'LEVEL'], ['Evil\u202Eclient\u200B\u{E0041}\u001b[2J', 'readOnly'], ['two\nlines', 'x']]);
    const shown = 'Evil⟨U+202E⟩client⟨U+200B⟩⟨U+E0041⟩⟨U+001B⟩[2J';
    expect(table.split('\n')).toEqual([`${'NAME'.padEnd(shown.length)}  LEVEL`, `${shown}  readOnly`, `${'two⟨U+000A⟩lines'.padEnd(shown.length)}  x`]);
  });
});
