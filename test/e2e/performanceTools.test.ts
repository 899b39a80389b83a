import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import { PERFORMANCE } from '../../src/db/analysis/queryPerformance.js';
import { engineModule } from '../../src/db/engines/registry.js';
import { ENGINE_NAMES } from '../../src/core/shared/engineNames.js';
import { expectModernSuccess, expectToolError } from '../helpers/rpcAssertions.js';
import type { Engine } from '../../src/db/database.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, createFixture, type EngineFixture, FIXTURE_BOOKS } from '../helpers/engines.js';
import { callTool, mintToken, startTestApp, type TestApp } from '../helpers/testApp.js';

/** explain_query's params and analyze, slow_queries and index_advice (issue 19, item 2) on each engine. */

const engines = await availableEngines();
const placeholder = (engine: Engine) => (engine === 'postgres' || engine === 'duckdb' ? '$1' : '?');
/** Books added so that a full scan of books is worth an index. */
const ADDED = PERFORMANCE.indexAdviceMinRows + 500;

describe.each(engines)('on %s', (engine) => {
  skipListed('performanceTools', engine);
  let fixture: EngineFixture;
  let app: TestApp;
  let dataDir: string;
  let headers: Record<string, string>;

  const tool = (name: string, args: Record<string, unknown>) => callTool(app, name, { connection_id: 'db', ...args }, { headers });
  const structured = async (name: string, args: Record<string, unknown>) => {
    const result = expectModernSuccess(await tool(name, args));
    expect(result.isError, JSON.stringify(result.content)).toBe(false);
    return result.structuredContent;
  };

  beforeAll(async () => {
    fixture = await createFixture(engine);
    const ids = Array.from({ length: ADDED }, (_, i) => FIXTURE_BOOKS + 1 + i);
    for (let start = 0; start < ids.length; start += 500) {
      const batch = ids.slice(start, start + 500);
      await fixture.query(`INSERT INTO books (id, author_id, title, price) VALUES ${batch.map((id) => `(${id}, 1, 'Extra ${id}', 9.99)`).join(', ')}`);
    }
    await fixture.query(engine === 'mysql' ? 'ANALYZE TABLE books' : 'ANALYZE');
    dataDir = mkdtempSync(join(tmpdir(), `sluice-performance-${engine}-`));
    writeConfig(dataDir, { connections: [fixture.connection] });
    app = await startTestApp({ dataDir, auth: true });
    headers = mintToken(app, `${engine} performance`).headers;
  });
  afterAll(async () => {
    await app?.dispose();
    await fixture?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('explain_query binds params and its plan names the table', async () => {
    const result = await structured('explain_query', { sql: `SELECT id FROM books WHERE title = ${placeholder(engine)}`, params: ['Book 07'] });
    expect(result.statement_kind).toBe('read');
    expect(result.plan).toMatch(/books/i);
    expect(result).not.toHaveProperty('actual');
  });

  it('explain_query refuses params that are objects', async () => {
    const res = await tool('explain_query', { sql: `SELECT id FROM books WHERE title = ${placeholder(engine)}`, params: [{ a: 1 }] });
    expect(expectToolError(res, 'invalid_argument')).toContain('params must be strings, numbers, booleans or null');
  });

  it('explain_query with analyze measures a SELECT, or says SQLite cannot', async () => {
    const args = { sql: `SELECT id, title FROM books WHERE author_id = ${placeholder(engine)}`, params: [2], analyze: true, timeout_seconds: 60 };
    if (engine === 'sqlite') {
      expect(expectToolError(await tool('explain_query', args), 'unsupported')).toContain('SQLite has no EXPLAIN ANALYZE');
      return;
    }
    const result = await structured('explain_query', args);
    expect(result.actual).toEqual({ execution_ms: expect.any(Number), rows: engine === 'postgres' ? expect.any(Number) : null });
    // MariaDB's ANALYZE reports the rows it read per table; PostgreSQL the rows each node returned.
    expect(result.plan).toMatch(engine === 'postgres' ? /actual time=.*rows=\d+/ : /"r_rows"/);
  });

  it('explain_query with analyze refuses an INSERT and leaves the table unchanged', async () => {
    const [[before] = []] = await fixture.query('SELECT COUNT(*) FROM books');
    const res = await tool('explain_query', { sql: "INSERT INTO books (id, author_id, title) VALUES (99999, 1, 'x')", analyze: true });
    expect(expectToolError(res, 'invalid_argument')).toContain('analyze runs only read-only statements');
    const [[after] = []] = await fixture.query('SELECT COUNT(*) FROM books');
    expect(Number(after)).toBe(Number(before));
  });

  it('explain_query still refuses an EXPLAIN ANALYZE written in the sql', async () => {
    const res = await tool('explain_query', { sql: 'EXPLAIN ANALYZE SELECT * FROM books' });
    expect(expectToolError(res, 'invalid_argument')).toContain('explain_query explains SELECT');
  });

  it('slow_queries says how to enable the statistics, or that the engine keeps none', async () => {
    if (engineModule(engine).performance?.slowQueries === undefined) {
      expect(expectToolError(await tool('slow_queries', {}), 'unsupported')).toBe(`unsupported: ${ENGINE_NAMES[engine]} keeps no statement statistics`);
      return;
    }
    const result = await structured('slow_queries', { order_by: 'mean', limit: 5 });
    if (result.available) {
      console.log(`slow_queries on ${engine}: the statistics are enabled on this server, so the note path is not reached`);
      expect(result.statements.length).toBeLessThanOrEqual(5);
      return;
    }
    expect(result).toEqual({ available: false, order_by: 'mean', statements: [], note: expect.any(String) });
    expect(result.note).toMatch(engine === 'postgres' ? /shared_preload_libraries.*CREATE EXTENSION pg_stat_statements/s : /performance_schema=ON/);
  });

  it('slow_queries on PostgreSQL reads pg_stat_statements, or says the server did not load it', async (context) => {
    if (engine !== 'postgres') return context.skip('pg_stat_statements is PostgreSQL’s; MySQL’s performance_schema note is the test above');
    await fixture.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    for (let i = 0; i < 3; i++) await fixture.query('SELECT count(*) AS slow_queries_probe FROM books WHERE id > $1', [i]);
    const result = await structured('slow_queries', { limit: PERFORMANCE.slowQueriesMax });
    if (result.available) {
      console.log('slow_queries on postgres: pg_stat_statements is preloaded on this server (as in CI); checked the installed path');
      expect(result.statements.length).toBeLessThanOrEqual(PERFORMANCE.slowQueriesMax);
      for (const s of result.statements) expect(Object.keys(s).sort()).toEqual(['calls', 'mean_ms', 'query', 'rows', 'total_ms']);
      // The probe, normalised ($1 stays a placeholder), with the three calls made above.
      const probe = result.statements.find((s: { query: string }) => s.query.includes('slow_queries_probe'));
      expect(probe).toMatchObject({ calls: 3, query: expect.stringContaining('id > $1') });
      return;
    }
    expect(result).toEqual({ available: false, order_by: 'total', statements: [], note: expect.stringContaining('the server did not load it') });
  });

  it('slow_queries refuses a limit over the maximum', async () => {
    const res = await tool('slow_queries', { limit: PERFORMANCE.slowQueriesMax + 1 });
    expect({ status: res.status, error: res.json?.error }).toEqual({
      status: 400,
      error: { code: -32602, message: `Invalid arguments: arguments.limit must be at most ${PERFORMANCE.slowQueriesMax}`, data: { path: 'arguments.limit' } },
    });
  });

  it('index_advice proposes an index for a lookup by an unindexed column', async () => {
    const result = await structured('index_advice', { sql: `SELECT id FROM books WHERE title = ${placeholder(engine)}`, params: ['Extra 900'] });
    const schema = { sqlite: 'main', postgres: 'public', mysql: fixture.database, duckdb: 'main' }[engine];
    const q = (name: string) => (engine === 'mysql' ? `\`${name}\`` : `"${name}"`);
    expect(result.suggestions).toEqual([
      {
        schema,
        table: 'books',
        columns: ['title'],
        statement:
          engine === 'sqlite'
            ? `CREATE INDEX ${q(schema)}.${q('books_title_idx')} ON ${q('books')} (${q('title')});`
            : `CREATE INDEX ${q('books_title_idx')} ON ${q(schema)}.${q('books')} (${q('title')});`,
        reason: expect.stringMatching(/^a full scan of about \d+ rows filters on title, and no index starts with it$/),
        estimated_rows: expect.any(Number),
      },
    ]);
    expect(result.suggestions[0].estimated_rows).toBeGreaterThanOrEqual(PERFORMANCE.indexAdviceMinRows);
    // Advice only: the index was not made.
    const described = await structured('describe_table', { table: 'books' });
    expect(described.indexes.map((i: { name: string }) => i.name)).not.toContain('books_title_idx');
  });

  it('index_advice proposes nothing for a lookup by primary key, or through an alias on an indexed column', async () => {
    expect(await structured('index_advice', { sql: `SELECT title FROM books WHERE id = ${placeholder(engine)}`, params: [7] })).toEqual({ suggestions: [] });
    const joined = await structured('index_advice', { sql: 'SELECT b.title FROM books AS b JOIN authors a ON a.id = b.author_id WHERE a.id = 2' });
    expect(joined.suggestions).toEqual([]);
  });

  it('index_advice without sql lists scanned tables on PostgreSQL and is unsupported elsewhere', async () => {
    if (engine !== 'postgres') {
      expect(expectToolError(await tool('index_advice', {}), 'unsupported')).toContain(engineModule(engine).unsupported?.indexAdvice ?? 'give the sql of a query');
      return;
    }
    const result = await structured('index_advice', {});
    expect(result).toEqual({ suggestions: [], scanned_tables: expect.any(Array), note: expect.stringContaining('index_advice with the sql') });
  });
});
