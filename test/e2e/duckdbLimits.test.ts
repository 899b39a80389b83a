import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { DATABASES } from '../../src/core/contract.js';
import { openDatabase } from '../../src/db/connections/connectionCatalog.js';
import { valuesOf, type Database } from '../../src/db/database.js';
import type { SavedConnection } from '../../src/db/connections/savedConnections.js';

/**
 * A DuckDB database runs inside Sluice's process: its memory and threads are capped when the instance
 * is made (`DATABASES.duckdbMemoryLimitMb`, `DATABASES.duckdbThreads`) and locked, so that no statement
 * can raise them; on a file and on `:memory:`, opened as the catalog opens a saved connection.
 */
let root: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'sluice-duckdb-limits-'));
  const instance = await DuckDBInstance.create(join(root, 'lake.duckdb'));
  const setup = await instance.connect();
  await setup.run('CREATE TABLE t (id INTEGER)');
  setup.closeSync();
  instance.closeSync();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const options = () => ({ maxRows: 10, timeoutMs: 10_000, signal: new AbortController().signal });

describe.each(['file', ':memory:'])('DuckDB limits (%s)', (kind) => {
  let db: Database;
  beforeAll(() => {
    const path = kind === 'file' ? join(root, 'lake.duckdb') : ':memory:';
    const connection = { id: 'lake', name: 'Lake', engine: 'duckdb', path, externalAccess: 'readWrite', aiPolicy: 'always' } as SavedConnection;
    db = openDatabase(connection, systemClock);
  });
  afterAll(() => db.close());

  it('has its memory limit and thread count from DATABASES', async () => {
    const result = await db.read("SELECT current_setting('memory_limit'), current_setting('threads')", options());
    expect(DATABASES.duckdbMemoryLimitMb).toBe(1024);
    expect(valuesOf(result.rows)).toEqual([['1.0 GiB', DATABASES.duckdbThreads]]);
  });

  it('refuses a statement that raises them, read or write', async () => {
    const locked = (option: string) => `Cannot change configuration option "${option}" - the configuration has been locked`;
    await expect(db.read("SET memory_limit = '10GB'", options())).rejects.toThrow(locked('memory_limit'));
    await expect(db.write("SET memory_limit = '10GB'", options())).rejects.toThrow(locked('memory_limit'));
    await expect(db.write('SET threads = 64', options())).rejects.toThrow(locked('threads'));
    const result = await db.read("SELECT current_setting('memory_limit'), current_setting('threads')", options());
    expect(valuesOf(result.rows)).toEqual([['1.0 GiB', DATABASES.duckdbThreads]]);
  });
});
