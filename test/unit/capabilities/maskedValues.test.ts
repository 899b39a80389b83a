import { describe, expect, it } from 'vitest';
import { hashValue, maskValue } from '../../../src/capabilities/maskedValues.js';

/** What a private column's value becomes (issue 30): its shape kept, or a stable keyed hash; NULL stays NULL. */
describe('maskValue', () => {
  it.each([
    ['ada.lovelace@example.org', 'a***@e***.org'],
    ['+44 20 7946 0958', '+** ** **** ****'],
    ['078-05-1120', '***-**-****'],
    ['Lovelace', 'L*******'],
    ['Ada', '***'],
    ['', ''],
  ])('%s → %s', (value, masked) => {
    expect(maskValue(value)).toBe(masked);
  });

  it('stars a number’s digits, leaves NULL as NULL, and hides what else a value holds', () => {
    expect([maskValue(1234), maskValue(-5.25), maskValue(12n), maskValue(null), maskValue(true), maskValue({ a: 1 })]).toEqual(['****', '-*.**', '**', null, '*', '***']);
  });
});

describe('hashValue', () => {
  const key = Buffer.alloc(32, 7);

  it('is h: and 16 hex digits, alike for the same value and key, different for another value or key', () => {
    const hashed = hashValue(key, 'ada@example.org');
    expect(hashed).toMatch(/^h:[0-9a-f]{16}$/);
    expect(hashValue(key, 'ada@example.org')).toBe(hashed);
    expect(hashValue(key, 'grace@example.org')).not.toBe(hashed);
    expect(hashValue(Buffer.alloc(32, 8), 'ada@example.org')).not.toBe(hashed);
    expect(hashValue(key, 12n)).toBe(hashValue(key, '12'));
    expect(hashValue(key, null)).toBeNull();
  });
});
