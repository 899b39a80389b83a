import { describe, expect, it } from 'vitest';
import { ColumnPolicyMatcher, parseColumnPolicy, patternRefusal } from '../../../src/db/connections/columnPolicy.js';
import { MASKING } from '../../../src/core/contract.js';

/** A connection's private columns (issue 30): patterns, their checks, and which rule holds for a column. */
describe('column policy', () => {
  const matcher = new ColumnPolicyMatcher(
    parseColumnPolicy({ rules: [{ pattern: '*email*', action: 'hash' }, { pattern: 'work_email', action: 'mask' }, { pattern: '*_SSN', action: 'hide' }, { pattern: 'phone*', action: 'mask' }] }, 'columnPolicy'),
  );

  it('matches names and globs without regard to case, the strictest rule winning', () => {
    expect(matcher.forName('EMAIL')?.action).toBe('hash');
    expect(matcher.forName('login_email')?.action).toBe('hash');
    expect(matcher.forName('work_email')?.action).toBe('mask');
    expect(matcher.forName('person_ssn')?.action).toBe('hide');
    expect(matcher.forName('phone_home')?.action).toBe('mask');
    expect(matcher.forName('home_phone')).toBeUndefined();
    expect(matcher.forName('ssn')).toBeUndefined();
  });

  it('refuses a pattern that is not a name or a glob, or that matches every column', () => {
    expect(patternRefusal('users.email')).toBe('"users.email" is not a column pattern: a column name or a glob with * (letters, digits, _ and $)');
    expect(patternRefusal('**')).toBe('"**" would match every column; name the columns');
    expect(patternRefusal('')).toBe('a column pattern has 1 to 128 characters');
    expect(patternRefusal('e-mail')).toMatch(/is not a column pattern/);
  });

  it('says what is wrong with a policy, and keeps its numbers', () => {
    expect(() => parseColumnPolicy({ rules: [{ pattern: 'email', action: 'blur' }] }, 'c.columnPolicy')).toThrow('c.columnPolicy: rules[0].action must be one of mask, hash, hide');
    expect(() => parseColumnPolicy({ rules: [], exemptTokens: ['a b'] }, 'c.columnPolicy')).toThrow('c.columnPolicy: exemptTokens must be an array of token ids');
    const tooMany = Array.from({ length: MASKING.maxRules + 1 }, (_, i) => ({ pattern: `c${i}`, action: 'mask' }));
    expect(() => parseColumnPolicy({ rules: tooMany }, 'p')).toThrow(`p: rules must be an array of at most ${MASKING.maxRules}`);
    expect(parseColumnPolicy({ rules: [], exemptTokens: ['t1', 't1'] }, 'p')).toEqual({ rules: [], exemptTokens: ['t1'] });
  });
});
