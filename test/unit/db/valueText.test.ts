import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { needsQuotes, rowText, valueText } from '../../../src/db/results/valueText.js';

/** The rule as a regular expression: the reference the fast check must agree with. */
// eslint-disable-next-line no-control-regex
const AMBIGUOUS = /["\\\u0000-\u001f\u007f\u2028\u2029]|^\s|\s$|^NULL$|^$/u;

describe('needsQuotes', () => {
  it('agrees with the reference for every UTF-16 code unit alone, at either edge and inside', () => {
    const disagreements: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const c = String.fromCharCode(code);
      for (const text of [c, `${c}a`, `a${c}`, `a${c}a`]) {
        if (needsQuotes(text) !== AMBIGUOUS.test(text)) disagreements.push(JSON.stringify(text));
      }
    }
    expect(disagreements).toEqual([]);
  });

  it('agrees with the reference for any string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('NULL', 'null', ' NULL', 'NULL ', '')), (text) => {
        expect(needsQuotes(text)).toBe(AMBIGUOUS.test(text));
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('valueText', () => {
  it.each([
    [null, 'NULL'],
    [undefined, 'NULL'],
    ['', '""'],
    ['NULL', '"NULL"'],
    ['null', 'null'],
    [' lead', '" lead"'],
    ['trail\u00a0', '"trail\u00a0"'],
    ['tab\there', '"tab\\there"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['sep\u2028', '"sep\u2028"'],
    ['del\u007f', '"del\u007f"'],
    ['0x00ff', '0x00ff'],
    ['12345678901234567890', '12345678901234567890'],
    [1.5, '1.5'],
    [-0, '0'],
    [1e21, '1e+21'],
    [true, 'true'],
    [['a, b', 'c', null, 2], '"a, b", c, NULL, 2'],
    [[], ''],
    [{ a: [1, 'x'] }, '{"a":[1,"x"]}'],
    [[{ a: 1 }], '[{"a":1}]'],
  ])('%j reads %s', (value, text) => {
    expect(valueText(value)).toBe(text);
  });

  it('writes a bigint as its digits', () => {
    expect(valueText(12345678901234567890n)).toBe('12345678901234567890');
  });

  it('writes what JSON cannot carry (NaN, Infinity) as the NULL its JSON shows', () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(valueText(value)).toBe('NULL');
      expect(JSON.parse(JSON.stringify([value]))).toEqual([null]);
    }
  });

  it('writes every value as its JSON round trip reads, so the server and a client reading structuredContent agree', () => {
    const cell = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom('', 'NULL', ' x', 'x ', 'a\tb', 'a\nb', '"', '\\', '\u2028', '\u007f'),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 4 }),
      fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
    );
    fc.assert(
      fc.property(fc.array(cell, { maxLength: 8 }), (row) => {
        expect(rowText(row)).toBe(rowText(JSON.parse(JSON.stringify(row)) as unknown[]));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('rowText', () => {
  it('separates cells by tabs; a cell holding a tab is quoted, so the row splits one way only', () => {
    expect(rowText([1, 'a\tb', null, ''])).toBe('1\t"a\\tb"\tNULL\t""');
    expect(rowText([])).toBe('');
  });
});
