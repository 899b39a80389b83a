import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionCatalog, connectionOnDatabase } from '../../../src/db/connections/connectionCatalog.js';
import type { SavedConnection } from '../../../src/db/connections/savedConnections.js';
import { DATABASES } from '../../../src/core/contract.js';
import { ToolError } from '../../../src/core/errors.js';
import { fromDriverError } from '../../../src/capabilities/dbErrors.js';

/** A call's `database`: which connection it means, and how many other databases' pools one connection keeps. */

const settings = { name: 'Shop', externalAccess: 'readOnly', aiPolicy: 'always' } as const;
const server: SavedConnection = { ...settings, id: 'shop', engine: 'postgres', url: 'postgres://app:secret@db.internal:5432/shop' };
const file: SavedConnection = { ...settings, id: 'demo', engine: 'sqlite', path: '/tmp/sluice-demo/bookshop.sqlite' };

describe('connectionOnDatabase', () => {
  it('is the connection itself without a database or with its own', () => {
    expect(connectionOnDatabase(server, undefined)).toBe(server);
    expect(connectionOnDatabase(server, 'shop')).toBe(server);
    expect(connectionOnDatabase(file, 'bookshop.sqlite')).toBe(file);
  });

  it('points a server connection at another database, named so in dialogs', () => {
    expect(connectionOnDatabase(server, 'stats 2025')).toEqual({
      ...server,
      name: 'Shop, database stats 2025',
      url: 'postgres://app:secret@db.internal:5432/stats%202025',
    });
  });

  it('refuses another database of a SQLite file as not_found', () => {
    // As the client sees it: the db layer's failure through the one mapping to tool errors.
    const onOther = () => {
      try {
        return connectionOnDatabase(file, 'other.sqlite');
      } catch (error) {
        throw fromDriverError(error);
      }
    };
    expect(onOther).toThrow(ToolError);
    expect(onOther).toThrow(/has one database, "bookshop.sqlite"/);
  });
});

describe('ConnectionCatalog.database with other databases', () => {
  let catalog: ConnectionCatalog | undefined;
  afterEach(async () => {
    await catalog?.close();
  });

  it(`keeps ${DATABASES.otherDatabasesPerConnection} other databases open per connection, closing the least recently used`, () => {
    catalog = new ConnectionCatalog([server]);
    const own = catalog.database(server);
    const names = Array.from({ length: DATABASES.otherDatabasesPerConnection }, (_, i) => `db${i}`);
    const first = names.map((name) => catalog!.database(server, name));
    // Used again: the same drivers, and db0 is now the most recently used.
    expect(names.map((name) => catalog!.database(server, name))).toEqual(first);
    catalog.database(server, 'db0');
    catalog.database(server, 'one more');
    // db1 was the least recently used: its pools were closed, and naming it again opens fresh ones.
    expect(catalog.database(server, 'db0')).toBe(first[0]);
    expect(catalog.database(server, 'db1')).not.toBe(first[1]);
    // The connection's own driver is never one of them.
    expect(catalog.database(server)).toBe(own);
  });
});
