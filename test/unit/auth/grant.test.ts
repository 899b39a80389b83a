import { describe, expect, it } from 'vitest';
import { checkGrant, GrantError, parseConnectionList, parseExpiry, unknownConnections } from '../../../src/auth/grant.js';

describe('checkGrant', () => {
  it('keeps the fields given, checked, and leaves absent ones absent', () => {
    expect(checkGrant({})).toEqual({});
    expect(checkGrant({ level: 'readWrite', connections: ['a', 'b'], expiresInDays: null })).toEqual({
      level: 'readWrite',
      connections: ['a', 'b'],
      expiresInDays: null,
    });
    expect(checkGrant({ connections: 'all', expiresInDays: 90 })).toEqual({ connections: 'all', expiresInDays: 90 });
  });

  it.each([
    [{ level: 'root' }, /^level must be one of readOnly, readWrite, fullAccess$/],
    [{ connections: [] }, /^connections must be "all" or a list of connection ids$/],
    [{ connections: ['a', ''] }, /^connections must be/],
    [{ connections: 'some' }, /^connections must be/],
    [{ expiresInDays: 3 }, /^expiresInDays must be null \(never\), 1, 7, 30 or 90$/],
    [{ expiresInDays: '7' }, /^expiresInDays must be/],
  ])('refuses %j', (fields, message) => {
    expect(() => checkGrant(fields)).toThrow(GrantError);
    expect(() => checkGrant(fields)).toThrow(message);
  });

  it('names the connections that are not saved ones', () => {
    const known = new Set(['main', 'logs']);
    expect(unknownConnections('all', known)).toBeUndefined();
    expect(unknownConnections(['main'], known)).toBeUndefined();
    expect(unknownConnections(['main', 'nope', 'gone'], known)).toBe('unknown connection nope, gone');
  });
});

describe('command-line text', () => {
  it('reads never and the day counts, and nothing else', () => {
    expect(parseExpiry('never')).toBeNull();
    expect([1, 7, 30, 90].map((days) => parseExpiry(String(days)))).toEqual([1, 7, 30, 90]);
    for (const bad of ['', '0', '3', '07', '1.0', 'Never', 'null']) expect(parseExpiry(bad)).toBeUndefined();
  });

  it('reads all, or ids separated by commas without an empty one', () => {
    expect(parseConnectionList('all')).toBe('all');
    expect(parseConnectionList('main,logs')).toEqual(['main', 'logs']);
    for (const bad of ['', 'a,,b', ',a', 'a,']) expect(parseConnectionList(bad)).toBeUndefined();
  });
});
