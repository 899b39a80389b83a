import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSluice } from '../helpers/cli.js';

/** `sluice connections add --duckdb PATH [--files-dir DIR]` and `test` on a real DuckDB file (from dist). */

let dir: string;
let lake: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-duckdb-cli-'));
  mkdirSync(join(dir, 'exports'));
  lake = join(dir, 'lake.duckdb');
  const instance = await DuckDBInstance.create(lake);
  const connection = await instance.connect();
  await connection.run('CREATE TABLE sales (region VARCHAR, amount INTEGER)');
  connection.closeSync();
  instance.closeSync();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const outcome = (result: ReturnType<typeof runSluice>) => ({ status: result.status, stdout: result.stdout, stderr: result.stderr });

describe('sluice connections add --duckdb', () => {
  it('saves a DuckDB file with its files directory, made absolute, once it answers', () => {
    const dataDir = mkdtempSync(join(dir, 'data-'));
    const added = runSluice(['connections', 'add', '--name', 'Lake', '--duckdb', lake, '--files-dir', join(dir, 'exports', '.'), '--data-dir', dataDir]);
    expect(outcome(added)).toEqual({ status: 0, stdout: 'added lake\n', stderr: '' });
    const saved = JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8')).connections;
    expect(saved.find((c: { id: string }) => c.id === 'lake')).toEqual(
      { id: 'lake', name: 'Lake', externalAccess: 'readOnly', aiPolicy: 'askEachTime', engine: 'duckdb', path: lake, filesDir: join(dir, 'exports') },
    );
    const tested = runSluice(['connections', 'test', 'lake', '--data-dir', dataDir]);
    expect(tested.stdout).toMatch(/^lake: DuckDB 1\.\d+\.\d+, \d+ ms\n$/);
  });

  it('saves :memory:, and refuses a missing file or --files-dir alone', () => {
    const dataDir = mkdtempSync(join(dir, 'data-'));
    expect(outcome(runSluice(['connections', 'add', '--name', 'Scratch', '--duckdb', ':memory:', '--data-dir', dataDir]))).toEqual({
      status: 0,
      stdout: 'added scratch\n',
      stderr: '',
    });
    const missing = join(dir, 'nowhere.duckdb');
    expect(outcome(runSluice(['connections', 'add', '--name', 'Gone', '--duckdb', missing, '--data-dir', dataDir]))).toEqual({
      status: 78,
      stdout: '',
      stderr: `sluice: ${missing} does not exist\n`,
    });
    expect(runSluice(['connections', 'add', '--name', 'X', '--sqlite', lake, '--files-dir', dir, '--data-dir', dataDir]).stderr).toBe(
      'sluice: --files-dir goes with --duckdb PATH\n',
    );
  });
});
