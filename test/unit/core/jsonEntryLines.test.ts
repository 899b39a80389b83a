import { describe, expect, it } from 'vitest';
import { entryLines, lineOfParseError } from '../../../src/core/jsonEntryLines.js';

describe('entryLines', () => {
  it('finds the line each element of the named top-level list starts on, whatever it holds', () => {
    const text = '{\n  "other": [{"tools": [1]}],\n  "tools": [\n    {"a": "}[\\"{"},\n    [1, 2],\n    "s", 12,\n    -1.5e3, true, null\n  ]\n}';
    expect(entryLines(text, 'tools')).toEqual([4, 5, 6, 6, 7, 7, 7]);
  });
});

describe('lineOfParseError', () => {
  it('names the line of the position JSON.parse reports', () => {
    const text = '{\n  "tools": [\n    { "name": "x", }\n  ]\n}';
    let error: Error | undefined;
    try {
      JSON.parse(text);
    } catch (caught) {
      error = caught as Error;
    }
    expect(lineOfParseError(text, error as Error)).toBe(3);
  });
});
