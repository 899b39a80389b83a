import { describe, expect, it } from 'vitest';
import { JsonShapeScanner } from '../../../src/protocol/jsonShape.js';

const limits = { maxDepth: 3, maxValues: 5 };

/** Feeds `text` in chunks of `size` bytes; returns the refusal's message, or undefined when accepted. */
function scan(text: string, size = 1): string | undefined {
  const scanner = new JsonShapeScanner(limits);
  const bytes = Buffer.from(text);
  try {
    for (let i = 0; i < bytes.length; i += size) scanner.push(bytes.subarray(i, i + size));
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('JsonShapeScanner: depth and values bounded as bytes arrive', () => {
  it('accepts the limits exactly, in any chunking', () => {
    for (const size of [1, 2, 7, 1000]) {
      expect(scan('{"a":[[1]]}', size)).toBeUndefined();
      expect(scan('[1,2,3,4]', size)).toBeUndefined();
    }
  });

  it('refuses one level or one value more', () => {
    expect(scan('{"a":[[[1]]]}')).toBe('Invalid request: the body nests deeper than 3 levels');
    expect(scan('[1,2,3,4,5]')).toBe('Invalid request: the body holds more than 5 values');
  });

  it('ignores brackets, commas and escaped quotes inside strings, across chunk boundaries', () => {
    for (const size of [1, 3]) {
      expect(scan('["[[[[,,,,,\\"]]]]\\\\", "{{{{,,,,"]', size)).toBeUndefined();
    }
    expect(scan('["\\\\",[[[1]]]]', 1)).toBe('Invalid request: the body nests deeper than 3 levels');
  });

  it('does not count multi-byte UTF-8 as structure', () => {
    expect(scan(`["${'€🙂'.repeat(100)}"]`, 1)).toBeUndefined();
  });
});
