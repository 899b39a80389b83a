import { describe, expect, it } from 'vitest';
import { updatedConnection } from '../../../src/db/connections/connectionEdits.js';
import type { SavedConnection } from '../../../src/db/connections/savedConnections.js';

/** The console edits a URL as listed, its password masked as `***`: sending it back keeps the saved password. */
const shop: SavedConnection = {
  id: 'shop',
  name: 'Shop',
  engine: 'postgres',
  url: 'postgres://reader:s%40cret@db.internal:5432/shop',
  externalAccess: 'readOnly',
  aiPolicy: 'askEachTime',
};

const urlAfter = (url: string) => (updatedConnection([shop], 'shop', { url }) as { url: string }).url;

describe('updatedConnection and a masked password', () => {
  it('a URL whose password is *** keeps the saved password, even with its host or database changed', () => {
    expect(urlAfter('postgres://reader:***@db2.internal:5433/shop2')).toBe(
      'postgres://reader:s%40cret@db2.internal:5433/shop2',
    );
  });

  it('a URL with another password, or none, is taken as it is', () => {
    expect(urlAfter('postgres://reader:new@db.internal:5432/shop')).toBe('postgres://reader:new@db.internal:5432/shop');
    expect(urlAfter('postgres://reader@db.internal:5432/shop')).toBe('postgres://reader@db.internal:5432/shop');
  });
});
