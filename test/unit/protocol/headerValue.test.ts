import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/core/errors.js';
import { decodeHeaderValue, encodeHeaderValue } from '../../../src/protocol/headerValue.js';

/**
 * Contract, "Required headers": a value that is not printable ASCII or has edge spaces travels as
 * `=?base64?<base64 of UTF-8>?=`; a malformed wrapper or a control character gives -32020. Node's HTTP
 * client and server refuse control characters other than HTAB, so those are tested here directly.
 */

const wrap = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

function mismatch(raw: string): ProtocolError {
  try {
    decodeHeaderValue('mcp-param-x', raw);
  } catch (error) {
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32020);
    expect((error as ProtocolError).httpStatus).toBe(400);
    return error as ProtocolError;
  }
  throw new Error(`decodeHeaderValue accepted ${JSON.stringify(raw)}`);
}

describe('decodeHeaderValue', () => {
  it.each(['demo', 'SELECT 1', 'tools/call', '', '5.0', 'a=b', '=', '?=', 'x=?base64?YQ==?='])(
    'takes printable ASCII %j as it is',
    (raw) => {
      expect(decodeHeaderValue('mcp-param-x', raw)).toBe(raw);
    },
  );

  it.each(['café', ' leading', 'trailing ', '日本語', '😀', 'a\tb', '\u00a0', ''])(
    'decodes the wrapper of %j',
    (text) => {
      expect(decodeHeaderValue('mcp-param-x', wrap(text))).toBe(text);
    },
  );

  it.each([
    ['a leading U+FEFF (byte order mark)', '\uFEFFabc'],
    ['only U+FEFF', '\uFEFF'],
    ['U+FEFF inside', 'a\uFEFFb'],
  ])('keeps %s: the decoded text equals the UTF-8 that was wrapped', (_label, text) => {
    expect(decodeHeaderValue('mcp-param-x', wrap(text))).toBe(text);
  });

  it('decodes a wrapped plain ASCII value too', () => {
    expect(decodeHeaderValue('mcp-name', wrap('count_rows'))).toBe('count_rows');
  });

  it.each([
    ['NUL', 'a\u0000b'],
    ['SOH', 'a\u0001b'],
    ['TAB', 'a\tb'],
    ['LF', 'a\nb'],
    ['CR', 'a\rb'],
    ['ESC', 'a\u001bb'],
    ['DEL', 'a\u007fb'],
    ['C1 control', 'a\u0085b'],
  ])('a control character (%s) → -32020', (_label, raw) => {
    mismatch(raw);
  });

  it.each(['café', 'naïve', '\u00a0x', '日本'])('a raw non-ASCII value %j → -32020', (raw) => {
    mismatch(raw);
  });

  it.each([
    ['not base64', '=?base64?!!!?='],
    ['bad padding', '=?base64?Y2Fmw6k?='],
    ['a single character', '=?base64?Y?='],
    ['too much padding', '=?base64?Y2Fmw6k===?='],
    ['padding in the middle', '=?base64?Y2=mw6k=?='],
    ['base64url alphabet', '=?base64?-_-_?='],
    ['not closed', '=?base64?Y2Fmw6k='],
    ['half closed', '=?base64?Y2Fmw6k=?'],
    ['trailing text', '=?base64?Y2Fmw6k=?=x'],
    ['spaces inside', '=?base64?Y2Fm w6k=?='],
    ['invalid UTF-8 (0xFF)', '=?base64?/w==?='],
    ['a lone continuation byte', '=?base64?gA==?='],
    ['an overlong encoding', '=?base64?wK8=?='],
    ['a UTF-16 surrogate encoded in UTF-8', '=?base64?7aCA?='],
  ])('a malformed wrapper (%s) → -32020', (_label, raw) => {
    mismatch(raw);
  });

  it('the error names the header', () => {
    expect(mismatch('=?base64?!!!?=').message).toContain('mcp-param-x');
  });
});

describe('encodeHeaderValue (the bridge sends with it)', () => {
  it('sends printable ASCII without edge spaces plain, and wraps everything else', () => {
    expect(encodeHeaderValue('execute_query')).toBe('execute_query');
    expect(encodeHeaderValue('sluice://connections/demo/tables/books')).toBe('sluice://connections/demo/tables/books');
    expect(encodeHeaderValue('café')).toBe(wrap('café'));
    expect(encodeHeaderValue(' padded')).toBe(wrap(' padded'));
    expect(encodeHeaderValue('tab\there')).toBe(wrap('tab\there'));
    // Plain text that looks like a wrapper would be decoded on arrival: it is wrapped itself.
    expect(encodeHeaderValue('=?base64?eA==?=')).toBe(wrap('=?base64?eA==?='));
  });

  it('round-trips through decodeHeaderValue for any Unicode text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        const sent = encodeHeaderValue(text);
        expect(sent).toMatch(/^[\x20-\x7e]*$/);
        expect(decodeHeaderValue('mcp-name', sent)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });
});
