import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { ConnectionCatalog } from '../../../src/db/connections/connectionCatalog.js';
import type { SavedConnection } from '../../../src/db/connections/savedConnections.js';

/** An updated connection: new settings keep its driver; a new target closes it, and the next use opens the new one. */
const dir = mkdtempSync(join(tmpdir(), 'sluice-catalog-update-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sqliteFile(name: string, table: string): string {
  const path = join(dir, name);
  const db = new Database(path);
  db.exec(`CREATE TABLE ${table} (id INTEGER)`);
  db.close();
  return path;
}

it('keeps the driver for a rename, replaces it for a new file', async () => {
  const first = sqliteFile('first.db', 'alpha');
  const second = sqliteFile('second.db', 'beta');
  const connection: SavedConnection = { id: 'c', name: 'C', engine: 'sqlite', path: first, externalAccess: 'readOnly', aiPolicy: 'always' };
  const catalog = new ConnectionCatalog([connection]);
  const tables = async () => (await catalog.database(catalog.get('c')!).listTables('main', new AbortController().signal)).map((t) => t.name);
  try {
    const driver = catalog.database(connection);
    expect(await tables()).toEqual(['alpha']);
    await catalog.update({ ...connection, name: 'Renamed', aiPolicy: 'never' });
    expect(catalog.database(catalog.get('c')!)).toBe(driver);
    await catalog.update({ ...connection, path: second });
    expect(catalog.database(catalog.get('c')!)).not.toBe(driver);
    expect(await tables()).toEqual(['beta']);
  } finally {
    await catalog.close();
  }
});
