import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ParquetWriter } from '../../../src/db/engines/duckdb/parquetFile.js';

/** Parquet written a page at a time (issue 27): column types follow the values across pages. */
describe('ParquetWriter', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-parquet-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function readBack(path: string) {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      const source = `read_parquet('${path}')`;
      const types = (await connection.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM ${source})`)).getRows();
      const rows = (await connection.runAndReadAll(`SELECT * FROM ${source}`)).getRows();
      return { types, rows: rows.map((row) => row.map((v) => (typeof v === 'bigint' ? Number(v) : v))) };
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  }

  it('widens a column when a later page needs it: null then integers, integers then a fraction, then text', async () => {
    const path = join(dir, 'out.parquet');
    const writer = await ParquetWriter.open(path);
    const names = ['late', 'number', 'mixed', 'flag'];
    try {
      await writer.page([[null, 1, 1, true], [null, 2, 2, false]], names);
      await writer.page([[7, 2.5, 'three', null]], names);
      await writer.finish(names);
    } finally {
      await writer.close();
    }
    expect(readdirSync(dir)).toEqual(['out.parquet']);
    expect(await readBack(path)).toEqual({
      types: [
        ['late', 'BIGINT'],
        ['number', 'DOUBLE'],
        ['mixed', 'VARCHAR'],
        ['flag', 'BOOLEAN'],
      ],
      rows: [
        [null, 1, '1', true],
        [null, 2, '2', false],
        [7, 2.5, 'three', null],
      ],
    });
  });

  it('keeps its scratch database where only this user may read it, and closed unfinished, leaves nothing', async () => {
    const writer = await ParquetWriter.open(join(dir, 'never.parquet'));
    await writer.page([[1]], ['n']);
    const [scratch] = readdirSync(dir);
    expect(scratch).toMatch(/^never\.parquet\.\w{6}$/);
    expect(statSync(join(dir, scratch as string)).mode & 0o777).toBe(0o700);
    await writer.close();
    expect(readdirSync(dir)).toEqual([]);
  });
});
