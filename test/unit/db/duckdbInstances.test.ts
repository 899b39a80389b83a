import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DuckdbDatabase } from '../../../src/db/engines/duckdb/duckdbDatabase.js';
import { systemClock } from '../../../src/core/clock.js';
import { valuesOf } from '../../../src/db/database.js';

/**
 * One DuckDB file, one instance in the process: two instances of a file each keep their own catalog and
 * log, and the writes of one were lost (two saved connections to one file, or a connection and its check).
 */

const options = () => ({ maxRows: 100, timeoutMs: 5_000, signal: new AbortController().signal });
const cell = async (db: DuckdbDatabase, sql: string) => valuesOf((await db.read(sql, options())).rows)[0]?.[0];

let root: string;
let path: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sluice-duckdb-instances-'));
  path = join(root, 'lake.duckdb');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('DuckDB connections to one file', () => {
  it('see each other’s writes at once, and every write reaches the file', async () => {
    const a = new DuckdbDatabase({ path }, systemClock);
    const b = new DuckdbDatabase({ path }, systemClock);
    await a.write('CREATE TABLE t (n INTEGER)', options());
    await a.write('INSERT INTO t VALUES (1)', options());
    expect(await cell(b, 'SELECT count(*) FROM t')).toBe(1);
    await b.write('INSERT INTO t VALUES (2)', options());
    await a.write('INSERT INTO t VALUES (3)', options());
    await b.close();
    expect(await cell(a, 'SELECT sum(n) FROM t')).toBe(6);
    await a.close();
    const reopened = new DuckdbDatabase({ path }, systemClock);
    try {
      expect(await cell(reopened, 'SELECT sum(n) FROM t')).toBe(6);
    } finally {
      await reopened.close();
    }
  });

  it('share one instance through a link to the file', async () => {
    const a = new DuckdbDatabase({ path }, systemClock);
    const b = new DuckdbDatabase({ path: join(root, 'link.duckdb') }, systemClock);
    await a.write('CREATE TABLE t AS SELECT 42 AS n', options());
    symlinkSync(path, join(root, 'link.duckdb'));
    try {
      await b.write('INSERT INTO t VALUES (8)', options());
      expect(await cell(a, 'SELECT sum(n) FROM t')).toBe(50);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('with another files directory is refused while the file is open, and opens once it is closed', async () => {
    mkdirSync(join(root, 'files'));
    const a = new DuckdbDatabase({ path }, systemClock);
    const b = new DuckdbDatabase({ path, filesDir: join(root, 'files') }, systemClock);
    await a.write('CREATE TABLE t AS SELECT 1 AS n', options());
    await expect(cell(b, 'SELECT n FROM t')).rejects.toMatchObject({
      kind: 'not_connected',
      message: `the DuckDB file ${path} is open already with no files directory; one file has one files directory`,
    });
    await a.close();
    try {
      expect(await cell(b, 'SELECT n FROM t')).toBe(1);
    } finally {
      await b.close();
    }
  });

  it('in memory are each their own database', async () => {
    const a = new DuckdbDatabase({ path: ':memory:' }, systemClock);
    const b = new DuckdbDatabase({ path: ':memory:' }, systemClock);
    try {
      await a.write('CREATE TABLE t (n INTEGER)', options());
      await expect(cell(b, 'SELECT count(*) FROM t')).rejects.toThrow(/^Catalog Error: Table with name t does not exist/);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
