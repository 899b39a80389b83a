import { describe, expect, it } from 'vitest';
import { exactValueText } from '../../../src/core/shared/exactValueText.js';

/** A kept value in words, as `sluice undo` and the console's table of differing rows show it. */
describe('exactValueText', () => {
  it('shows text quoted and as it is (its invisible characters left for the caller to escape)', () => {
    expect(exactValueText('trailing  ')).toEqual({ kind: 'text', text: '"trailing  "' });
    expect(exactValueText('\u202Eabc')).toEqual({ kind: 'text', text: '"\u202Eabc"' });
    expect(exactValueText('')).toEqual({ kind: 'text', text: '""' });
  });

  it('shows numbers as the engine wrote them, and null', () => {
    expect(exactValueText({ i: '9007199254740993' })).toEqual({ kind: 'integer', text: '9007199254740993' });
    expect(exactValueText({ f: '-0.0' })).toEqual({ kind: 'float', text: '-0.0' });
    expect(exactValueText({ f: 'Infinity' })).toEqual({ kind: 'float', text: 'Infinity' });
    expect(exactValueText(null)).toEqual({ kind: 'null', text: 'null' });
  });

  it('shows bytes in hex, every one of the 256 values, and an empty blob', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    expect(exactValueText({ b: all.toString('base64') })).toEqual({ kind: 'bytes', text: `x'${all.toString('hex')}'` });
    expect(exactValueText({ b: '' })).toEqual({ kind: 'bytes', text: "x''" });
  });

  it('shows text that is not base64, where bytes were expected, as it came', () => {
    expect(exactValueText({ b: 'not base64!' })).toEqual({ kind: 'bytes', text: 'base64 not base64!' });
  });
});
