import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORTS } from '../../src/core/contract.js';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import { availableEngines, createFixture, type EngineFixture } from '../helpers/engines.js';
import { eventually } from '../helpers/polling.js';
import { expectRpcError, expectToolSuccess } from '../helpers/rpcAssertions.js';
import { callTool, mintToken, sendCancelled, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * export_data's memory (issue 27): an export is read and written a page at a time on every engine and
 * in every format, so the server (this process: Sluice runs in it) grows by at most
 * `EXPORTS.memoryMb` whatever the result's size. Measured, not timed: the kernel's peak resident size
 * (VmHWM), reset just before each export. A result of 200,000 rows of 1,000 characters (200 MB) is
 * enough to cost the old whole-result export several hundred MB. Each is measured on a server that has
 * read before: the first large read of a process grows V8's young generation and DuckDB's allocator
 * arenas to their working size once (docs/performance.md), so a warm-up export of 20,000 rows comes first.
 */

const ROWS = 200_000;
const WARM_UP_ROWS = 20_000;
const WIDE: Record<string, string> = {
  postgres: `SELECT g AS n, repeat('x', 1000) AS pad FROM generate_series(1, ${ROWS}) AS g`,
  mysql: `SELECT seq AS n, REPEAT('x', 1000) AS pad FROM seq_1_to_${ROWS}`,
  sqlite: `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${ROWS}) SELECT n, hex(zeroblob(500)) AS pad FROM s`,
  duckdb: `SELECT range AS n, repeat('x', 1000) AS pad FROM range(1, ${ROWS + 1})`,
};

/** This process's peak resident size since the last reset, and its size now, in MiB (Linux). */
const status = (field: 'VmHWM' | 'VmRSS') => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;
const resetPeak = () => writeFileSync('/proc/self/clear_refs', '5');

const canMeasure = process.platform === 'linux';
const engines = await availableEngines();

describe.runIf(canMeasure).each(engines)('export_data memory on %s', (engine) => {
  let fixture: EngineFixture | undefined;
  let app: TestApp;
  let dataDir: string;
  let dir: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), `sluice-export-memory-${engine}-`));
    dir = mkdtempSync(join(tmpdir(), 'sluice-export-memory-out-'));
    fixture = await createFixture(engine);
    writeConfig(dataDir, { connections: [fixture.connection] });
    app = await startTestApp({ dataDir, auth: true });
    headers = mintToken(app, `${engine} export memory`).headers;
  });
  afterAll(async () => {
    await app?.dispose();
    await fixture?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs one export through Sluice's dialog, approved; returns its result. */
  async function approvedExport(sql: string, format: string, path: string, id: string | number, maxRows = EXPORTS.defaultRows) {
    const pending = callTool(app, 'export_data', { connection_id: 'db', sql, format, path, max_rows: maxRows }, { id, headers });
    const dialog = await eventually(() => app.dialogs.list().find((d) => d.destination?.path === path), 'the export dialog');
    expect(app.dialogs.answer(dialog.id, 'approve')).toBe(true);
    return pending;
  }

  it.each(['csv', 'jsonl', 'parquet'])(`writes ${ROWS} rows of 1,000 characters as %s within ${EXPORTS.memoryMb} MB`, { timeout: 120_000 }, async (format) => {
    // Warmed up first: the pools, the query process, DuckDB's library for Parquet, the process's working size.
    await approvedExport(`${WIDE[engine]} LIMIT ${WARM_UP_ROWS}`, format, join(dir, `warm.${format}`), 'warm', WARM_UP_ROWS);
    const path = join(dir, `wide.${format}`);
    const before = status('VmRSS');
    resetPeak();
    const out = expectToolSuccess(await approvedExport(WIDE[engine] as string, format, path, 1, ROWS));
    const grew = status('VmHWM') - before;
    expect(out).toMatchObject({ rows: ROWS, is_truncated: false, bytes: statSync(path).size });
    expect(grew, `peak growth ${grew.toFixed(0)} MB`).toBeLessThan(EXPORTS.memoryMb);
    rmSync(path);
  });

  it('cancelled mid-export to Parquet, leaves no file: neither the temp file nor the scratch database', { timeout: 60_000 }, async () => {
    const out = mkdtempSync(join(tmpdir(), 'sluice-export-cancel-'));
    try {
      // Ten times the wide result (as far as the export's byte limit): far longer than the cancel takes to arrive.
      const sql = (WIDE[engine] as string).replaceAll(String(ROWS), String(10 * ROWS));
      const pending = approvedExport(sql, 'parquet', join(out, 'cancelled.parquet'), 'cancel', EXPORTS.maxRows);
      await eventually(() => readdirSync(out).find((name) => statSync(join(out, name)).size > 0), 'the first page written', 10_000);
      expect((await sendCancelled(app, 'cancel', headers)).status).toBe(202);
      expectRpcError(await pending, 200, -33002, 'cancel');
      await expect.poll(() => readdirSync(out), { timeout: 2_000, interval: 25 }).toEqual([]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
