import { describe, expect, it } from 'vitest';
import { updatedConnection, withAdded, withRemoved } from '../../../src/db/connections/connectionEdits.js';
import type { SavedConnection } from '../../../src/db/connections/savedConnections.js';

const notes: SavedConnection = {
  id: 'notes',
  name: 'Notes',
  description: 'kept notes',
  engine: 'sqlite',
  path: '/data/notes.db',
  externalAccess: 'readWrite',
  aiPolicy: 'always',
};
const shop: SavedConnection = { id: 'shop', name: 'Shop', engine: 'postgres', url: 'postgres://u:pw@db:5432/shop', externalAccess: 'readOnly', aiPolicy: 'askEachTime' };
const list = [notes, shop];

describe('connection edits', () => {
  it('update changes only what it is given', () => {
    expect(updatedConnection(list, 'notes', { aiPolicy: 'never' })).toEqual({ ...notes, aiPolicy: 'never' });
    expect(updatedConnection(list, 'shop', { name: 'Shop (prod)', externalAccess: undefined })).toEqual({ ...shop, name: 'Shop (prod)' });
  });

  it('a new target changes the engine and drops the old one', () => {
    expect(updatedConnection(list, 'notes', { url: 'mysql://root@127.0.0.1:3306/test' })).toEqual({
      id: 'notes',
      name: 'Notes',
      description: 'kept notes',
      engine: 'mysql',
      url: 'mysql://root@127.0.0.1:3306/test',
      externalAccess: 'readWrite',
      aiPolicy: 'always',
    });
    expect(updatedConnection(list, 'shop', { path: '/data/shop.db' })).toEqual({
      id: 'shop',
      name: 'Shop',
      engine: 'sqlite',
      path: '/data/shop.db',
      externalAccess: 'readOnly',
      aiPolicy: 'askEachTime',
    });
  });

  it('refuses what would break the list, naming the problem', () => {
    expect(() => updatedConnection(list, 'shop', { name: 'notes' })).toThrow('the name "notes" is taken by connection "notes" (names must be unique)');
    expect(() => updatedConnection(list, 'nope', { name: 'x' })).toThrow('no connection with id "nope"');
    expect(() => updatedConnection(list, 'shop', { path: '/a.db', url: 'postgres://u@h/d' })).toThrow('give either path (SQLite) or url (PostgreSQL, MySQL), not both');
    expect(() => updatedConnection(list, 'shop', { url: 'ftp://h/d' })).toThrow('url must be postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE or mysql://… (mariadb://…)');
    expect(() => withAdded(list, { ...notes, id: 'other', name: 'SHOP' })).toThrow('the name "SHOP" is taken by connection "shop" (names must be unique)');
    expect(() => withAdded(list, { ...notes, name: 'Other' })).toThrow('a connection with id "notes" exists already (choose another with --id)');
    expect(() => withRemoved(list, 'nope')).toThrow('no connection with id "nope"');
  });

  it('a rename to its own name in another case is allowed; remove leaves the others in order', () => {
    expect(updatedConnection(list, 'notes', { name: 'NOTES' }).name).toBe('NOTES');
    expect(withRemoved([notes, shop, { ...notes, id: 'third', name: 'Third' }], 'shop').map((c) => c.id)).toEqual(['notes', 'third']);
  });
});
