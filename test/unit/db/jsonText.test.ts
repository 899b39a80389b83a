import { describe, expect, it } from 'vitest';
import { RESULTS } from '../../../src/core/contract.js';
import { JsonText, jsonValue } from '../../../src/db/results/jsonText.js';
import { RowBudget } from '../../../src/db/results/resultBudget.js';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('jsonValue: JSON from a database, or its text when JSON cannot carry it', () => {
  it('parses a document nested up to RESULTS.jsonDepth, and gives the text of a deeper one', () => {
    expect(jsonValue('{"a": [1, {"b": null}]}')).toEqual({ a: [1, { b: null }] });
    expect(jsonValue(nested(RESULTS.jsonDepth))).not.toBeInstanceOf(JsonText);
    expect(jsonValue(nested(RESULTS.jsonDepth + 1))).toEqual(new JsonText(nested(RESULTS.jsonDepth + 1)));
    expect(jsonValue(nested(5_000))).toEqual(new JsonText(nested(5_000)));
  });

  it('never parses a document longer than a value may be', () => {
    const long = JSON.stringify(['x'.repeat(RESULTS.cellBytes)]);
    const parse = () => {
      throw new Error('parsed');
    };
    expect(jsonValue(long, parse)).toEqual(new JsonText(long));
  });

  it('takes well under 50 ms for a 5,000-deep or a 32 MB document (the event loop is not held)', () => {
    const huge = JSON.stringify(['x'.repeat(32 * 1024 * 1024)]);
    for (const text of [nested(5_000), nested(30_000), huge]) {
      // The best of five: a garbage collection or a busy machine is not the parse's time.
      const times = Array.from({ length: 5 }, () => {
        const started = performance.now();
        jsonValue(text);
        return performance.now() - started;
      });
      expect(Math.min(...times)).toBeLessThan(50);
    }
  });

  it('the budget writes it as its text, counts it, and cuts it like any long value', () => {
    const budget = new RowBudget(RESULTS.defaultBytes, { answer: true });
    const row: unknown[] = [jsonValue(nested(5_000)), jsonValue(JSON.stringify(['y'.repeat(2 * RESULTS.cellBytes)]))];
    expect(budget.take(row)).toBe(true);
    expect(row[0]).toBe(nested(5_000));
    expect(row[1]).toMatch(/^\["y+…\[cut: \d+ characters in all\]$/);
    expect(budget.outcome(undefined)).toMatchObject({ valuesAsText: 2, cellsCut: 1, truncated: false });
  });
});
