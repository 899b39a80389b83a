import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RawJson, toJsonPieces, toJsonText } from '../../../src/protocol/rawJson.js';

/** Replaces the subvalues `picks` selects (in visiting order) with RawJson of their text, spaced unusually. */
function withRaw(value: unknown, picks: boolean[], visited = { count: 0 }): unknown {
  const pick = picks.length > 0 && picks[visited.count++ % picks.length];
  if (pick) return new RawJson(` ${JSON.stringify(value, null, 1)}\n`);
  if (Array.isArray(value)) return value.map((item) => withRaw(item, picks, visited));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withRaw(item, picks, visited)]));
  }
  return value;
}

describe('toJsonText', () => {
  it('equals JSON.stringify for a value without RawJson', () => {
    const value = { a: 1, b: [true, null, 'x"y'], c: { d: 'é\n\u0000' }, e: undefined, f: new Date(0) };
    expect(toJsonText(value)).toBe(JSON.stringify(value));
    expect(toJsonText('text')).toBe(JSON.stringify('text'));
    expect(toJsonText([])).toBe('[]');
  });

  it('splices a nested RawJson’s text verbatim', () => {
    const value = { result: { rows: new RawJson('[1, 2 ,3]'), more: false } };
    expect(toJsonText(value)).toBe('{"result":{"rows":[1, 2 ,3],"more":false}}');
    expect(toJsonText([0, [new RawJson('{ "a" :1 }')]])).toBe('[0,[{ "a" :1 }]]');
  });

  it('as pieces: the text around each RawJson, and its text, not joined', () => {
    const rows = new RawJson('[1, 2 ,3]');
    expect(toJsonPieces({ result: { rows, more: false } })).toEqual(['{"result":{"rows":', '[1, 2 ,3]', ',"more":false}}']);
    expect(toJsonPieces({ a: 1 })).toEqual(['{"a":1}']);
  });

  it('splices a top-level RawJson verbatim', () => {
    expect(toJsonText(new RawJson('[ 1 ]'))).toBe('[ 1 ]');
  });

  it('splices two RawJson, and one instance met twice, each in its place', () => {
    const first = new RawJson('[1, 2 ,3]');
    const second = new RawJson('{ "b" : "c" }');
    expect(toJsonText({ x: first, y: [second, 'z'] })).toBe('{"x":[1, 2 ,3],"y":[{ "b" : "c" },"z"]}');
    expect(toJsonText({ x: first, y: { again: first }, z: second })).toBe(
      '{"x":[1, 2 ,3],"y":{"again":[1, 2 ,3]},"z":{ "b" : "c" }}',
    );
  });

  it('leaves a string that looks like a placeholder untouched', () => {
    const lookalike = '\u0000raw-json-00:0';
    const value = { before: lookalike, rows: new RawJson('[1, 2 ,3]'), after: [lookalike, '\u0000raw-json-:0'] };
    expect(toJsonText(value)).toBe(
      `{"before":${JSON.stringify(lookalike)},"rows":[1, 2 ,3],"after":[${JSON.stringify(lookalike)},"\\u0000raw-json-:0"]}`,
    );
  });

  it('writes correct JSON for a RawJson serialised by plain JSON.stringify, by parsing it', () => {
    const raw = new RawJson('{ "rows" : [[1, "a"], [2 , null]] }');
    const text = JSON.stringify({ raw });
    expect(text).toBe('{"raw":{"rows":[[1,"a"],[2,null]]}}');
    expect(JSON.parse(text)).toEqual({ raw: JSON.parse(raw.text) });
  });

  it('writes correct JSON when a toJSON inside the value stringifies a RawJson on its own', () => {
    const raw = new RawJson('{ "inner" : 1 }');
    const value = { a: 1, wrapped: { toJSON: () => JSON.stringify({ raw }) } };
    const text = toJsonText(value);
    expect(JSON.parse(text)).toEqual({ a: 1, wrapped: '{"raw":{"inner":1}}' });
  });

  it('leaves no splicing under way after it throws', () => {
    const raw = new RawJson('[1, 2 ,3]');
    expect(() => toJsonText({ raw, big: 1n })).toThrow(TypeError);
    expect(JSON.stringify({ raw })).toBe('{"raw":[1,2,3]}');
    expect(toJsonText({ raw })).toBe('{"raw":[1, 2 ,3]}');
  });

  it('writes valid JSON that parses as if each raw text had been parsed in place', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(fc.boolean(), { maxLength: 7 }), (value, picks) => {
        const text = toJsonText(withRaw(value, picks));
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 300 },
    );
  });
});
