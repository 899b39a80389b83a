import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import { expectModernSuccess, expectToolError } from '../helpers/rpcAssertions.js';
import { engineModule } from '../../src/db/engines/registry.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, createFixture, type EngineFixture } from '../helpers/engines.js';
import { callTool, mintToken, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * table_statistics, database_statistics and database_health on each engine, with a fixture made to have
 * findings; an engine whose module has neither statistics nor health checks (DuckDB) says so.
 */

const engines = await availableEngines();

/** A table without a primary key, an index that duplicates books_author_idx, statistics for the fixture's tables. */
const SETUP = {
  sqlite: ['CREATE TABLE loose_notes (body VARCHAR(100))', 'CREATE INDEX books_author_copy ON books (author_id)', 'ANALYZE'],
  postgres: ['CREATE TABLE loose_notes (body VARCHAR(100))', 'CREATE INDEX books_author_copy ON books (author_id)', 'ANALYZE authors, books, sluice_canary'],
  mysql: ['CREATE TABLE loose_notes (body VARCHAR(100))', 'CREATE INDEX books_author_copy ON books (author_id)', 'ANALYZE TABLE books'],
  duckdb: ['CREATE TABLE loose_notes (body VARCHAR(100))', 'CREATE INDEX books_author_copy ON books (author_id)', 'ANALYZE'],
};

describe.each(engines)('statistics tools on %s', (engine) => {
  skipListed('statisticsTools', engine);
  let fixture: EngineFixture;
  let app: TestApp;
  let dataDir: string;
  let headers: Record<string, string>;

  const call = (name: string, args: Record<string, unknown>) => callTool(app, name, { connection_id: 'db', ...args }, { headers });
  const structured = async (name: string, args: Record<string, unknown> = {}) => {
    const result = expectModernSuccess(await call(name, args));
    expect(result.isError, JSON.stringify(result.content)).toBe(false);
    return result.structuredContent;
  };
  const schema = () => ({ sqlite: 'main', postgres: 'public', mysql: fixture.database, duckdb: 'main' })[engine];

  beforeAll(async () => {
    fixture = await createFixture(engine);
    if (fixture.connection.engine === 'sqlite') {
      // A book whose author does not exist, for foreign_key_check: written with the checks off.
      const direct = new Database(fixture.connection.path);
      direct.pragma('foreign_keys = OFF');
      direct.prepare("INSERT INTO books (id, author_id, title) VALUES (99, 42, 'Orphan')").run();
      direct.close();
    }
    for (const sql of SETUP[engine]) await fixture.query(sql);
    dataDir = mkdtempSync(join(tmpdir(), `sluice-stats-${engine}-`));
    writeConfig(dataDir, { connections: [fixture.connection] });
    app = await startTestApp({ dataDir, auth: true });
    headers = mintToken(app, `${engine} statistics`).headers;
  });
  afterAll(async () => {
    await app?.dispose();
    await fixture?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.runIf(engineModule(engine).statistics === undefined)('without statistics and health checks, each tool says unsupported, naming the engine', async () => {
    const name = { sqlite: 'SQLite', postgres: 'PostgreSQL', mysql: 'MySQL/MariaDB', duckdb: 'DuckDB' }[engine];
    expect(expectToolError(await call('table_statistics', { table: 'books' }), 'unsupported')).toMatch(new RegExp(`^unsupported: statistics are not available for ${name} connections`));
    expect(expectToolError(await call('database_statistics', {}), 'unsupported')).toMatch(new RegExp(`^unsupported: statistics are not available for ${name} connections`));
    expect(expectToolError(await call('database_health', {}), 'unsupported')).toMatch(new RegExp(`^unsupported: health checks are not available for ${name} connections`));
  });

  it('table_statistics of one table: rows, sizes and the engine’s own fields', async () => {
    const result = await structured('table_statistics', { table: 'BOOKS' });
    expect(result).toEqual({ schema: schema(), tables: [expect.any(Object)], is_truncated: false, notes: [] });
    const [books] = result.tables;
    expect(Object.keys(books)).toEqual([
      'table', 'estimated_rows', 'row_count_source', 'total_bytes', 'table_bytes', 'index_bytes', 'last_analyze', 'last_autoanalyze', 'last_vacuum',
      'last_autovacuum', 'dead_tuples', 'seq_scans', 'index_scans', 'auto_increment', 'update_time',
    ]);
    expect(books.table).toBe('books');
    if (engine === 'mysql') expect(books.estimated_rows).toBeGreaterThanOrEqual(0);
    // SQLite counts it (26: the fixture's 25 and the orphan written above); the servers estimate it.
    else expect(books.estimated_rows).toBe(engine === 'sqlite' ? 26 : 25);
    expect(books.row_count_source).toBe(({ sqlite: 'count', postgres: 'pg_class', mysql: 'information_schema', duckdb: null } as const)[engine]);
    expect(books.total_bytes).toBeGreaterThan(0);
    expect(books.table_bytes).toBeGreaterThan(0);
    expect(books.index_bytes).toBeGreaterThan(0);
    expect(books.total_bytes).toBe(books.table_bytes + books.index_bytes);
    const pgOnly = [books.last_analyze, books.last_autoanalyze, books.last_vacuum, books.last_autovacuum, books.dead_tuples, books.seq_scans, books.index_scans];
    if (engine === 'postgres') {
      expect(books.last_analyze).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(books.dead_tuples).toBe(0);
      expect(typeof books.seq_scans).toBe('number');
    } else expect(pgOnly).toEqual([null, null, null, null, null, null, null]);
    expect(books.auto_increment).toBe(null);
    if (engine !== 'mysql') expect(books.update_time).toBe(null);
  });

  it('table_statistics of a schema lists its tables, not its views', async () => {
    const result = await structured('table_statistics');
    expect(result.tables.map((t: { table: string }) => t.table)).toEqual(['authors', 'books', 'loose_notes', 'sluice_canary']);
    expect(result.is_truncated).toBe(false);
  });

  it('table_statistics refuses a view and an unknown table', async () => {
    expect(expectToolError(await call('table_statistics', { table: 'book_titles' }), 'invalid_argument')).toBe(
      'invalid_argument: "book_titles" is a view; table_statistics covers tables',
    );
    expectToolError(await call('table_statistics', { table: 'nowhere' }), 'not_found');
    expectToolError(await call('table_statistics', { schema: 'nowhere' }), 'not_found');
  });

  it('database_statistics: size, counts, version and the engine’s counters', async () => {
    const stats = await structured('database_statistics');
    expect(stats).toMatchObject({ database: fixture.database, table_count: 4, index_count: expect.any(Number) });
    expect(stats.size_bytes).toBeGreaterThan(0);
    expect(stats.engine_version).toMatch(/^\d+\.\d+/);
    if (engine === 'sqlite') {
      expect(stats.size_bytes).toBe(stats.page_size * stats.page_count);
      expect(stats).toMatchObject({ freelist_count: 0, journal_mode: 'delete', cache_hit_ratio: null, connections: null });
    } else {
      expect(stats.cache_hit_ratio).toBeGreaterThan(0);
      expect(stats.cache_hit_ratio).toBeLessThanOrEqual(1);
      expect(stats.connections).toBeGreaterThanOrEqual(1);
      expect(stats.max_connections).toBeGreaterThanOrEqual(stats.connections);
      expect(stats.uptime_seconds).toBeGreaterThanOrEqual(0);
      expect(stats).toMatchObject({ page_size: null, page_count: null, freelist_count: null, journal_mode: null });
    }
  });

  it('database_health finds the duplicate index and the table without a primary key', async () => {
    const health = await structured('database_health');
    expect(health.is_truncated).toBe(false);
    const s = schema();
    expect(health.findings).toContainEqual({
      check: 'duplicate_indexes',
      severity: 'warning',
      object: `${s}.books.books_author_idx`,
      detail: 'same key as books_author_copy (author_id)',
    });
    expect(health.findings).toContainEqual(expect.objectContaining({ check: 'no_primary_key', object: `${s}.loose_notes` }));
    expect(health.findings.filter((f: { check: string }) => f.check === 'no_primary_key')).toHaveLength(1);
    for (const finding of health.findings) {
      expect(['info', 'warning']).toContain(finding.severity);
      expect(Object.keys(finding).every((k) => ['check', 'severity', 'object', 'detail'].includes(k))).toBe(true);
    }
    const expected = {
      sqlite: ['quick_check', 'freelist', 'foreign_key_check', 'no_primary_key', 'duplicate_indexes', 'redundant_indexes', 'never_analyzed'],
      postgres: ['table_bloat', 'unused_indexes', 'duplicate_indexes', 'redundant_indexes', 'cache_hit_ratio', 'long_running_sessions', 'never_analyzed', 'no_primary_key'],
      mysql: ['unused_indexes', 'duplicate_indexes', 'redundant_indexes', 'long_running_transactions', 'no_primary_key'],
      duckdb: [],
    }[engine];
    expect(health.checks).toEqual(expected);
    if (engine === 'sqlite') {
      expect(health.findings).toContainEqual({ check: 'foreign_key_check', severity: 'warning', detail: '1 row(s) reference a missing parent row' });
      expect(health.findings.some((f: { check: string }) => f.check === 'quick_check' || f.check === 'never_analyzed')).toBe(false);
    }
    if (engine === 'postgres') {
      const neverAnalyzed = health.findings.filter((f: { check: string }) => f.check === 'never_analyzed').map((f: { object: string }) => f.object);
      expect(neverAnalyzed).toEqual(['public.loose_notes']);
    }
  });
});
