import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toResultSet } from '../../src/capabilities/resultSet.js';
import { resultText } from '../../src/capabilities/resultText.js';
import { fenced } from '../../src/capabilities/dataFence.js';
import { rowsCutNote } from '../../src/capabilities/cutNote.js';
import { RESULTS } from '../../src/core/contract.js';
import { expectToolSuccess } from '../helpers/rpcAssertions.js';
import type { Engine } from '../../src/db/database.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, type EngineFixture, startFixtureApp } from '../helpers/engines.js';
import { callTool, type RawResponse, type TestApp } from '../helpers/testApp.js';

/**
 * `max_bytes` bounds the whole answer (issue 27, finding 4): the columns' names and types, the header
 * line, the fixed fields and both renderings of the rows, on every engine. Once it counted only the
 * rows' JSON, and a 117-character DuckDB PIVOT over 5,000 long values answered 20.2 MB for 4,096.
 */

const MAX_BYTES = 4_096;
/** What the answer may take: `max_bytes`, and its fixed fields. */
const BOUND = MAX_BYTES + RESULTS.answerFieldsBytes;

/** The tool result as it goes over the wire (content, structuredContent and their frame), in bytes. */
const answerBytes = (res: RawResponse) => Buffer.byteLength(JSON.stringify(res.json.result));

/** A name of `length` characters, unique by `i`. */
const longName = (i: number, length: number) => `c${i}_`.padEnd(length, 'x');

/** A table of many columns with long names: as many and as long as each engine allows. */
const WIDE_TABLE: Record<Engine, { columns: number; nameLength: number; type: string; quote: string }> = {
  sqlite: { columns: 2_000, nameLength: 10_000, type: 'INTEGER', quote: '"' },
  postgres: { columns: 1_600, nameLength: 63, type: 'int', quote: '"' },
  mysql: { columns: 500, nameLength: 64, type: 'int', quote: '`' },
  duckdb: { columns: 2_000, nameLength: 1_000, type: 'INTEGER', quote: '"' },
};
const UNICODE_ROWS: Record<Engine, string> = {
  sqlite: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500) SELECT i, replace(hex(zeroblob(300)), '00', 'é🙂') FROM n",
  postgres: "SELECT i, repeat('é🙂', 300) FROM generate_series(1, 500) i",
  mysql: "SELECT seq, REPEAT('é🙂', 300) FROM seq_1_to_500",
  duckdb: "SELECT i, repeat('é🙂', 300) FROM range(1, 501) t(i)",
};

const engines = await availableEngines();

function expectBounded(res: RawResponse) {
  const result = expectToolSuccess(res);
  expect(answerBytes(res)).toBeLessThanOrEqual(BOUND);
  expect(result.is_truncated).toBe(true);
  expect(result.truncated_reason).toBe('max_bytes');
  expect(result.row_count).toBe(1);
  for (const row of result.rows) expect(row).toHaveLength(result.columns.length);
  return result;
}

describe.each(engines)('max_bytes bounds the whole answer on %s', (engine) => {
  skipListed('answerBytes', engine);
  let fixture: EngineFixture;
  let app: TestApp;
  let dispose: () => Promise<void>;
  const query = (sql: string) => callTool(app, 'execute_query', { connection_id: 'db', sql, max_rows: 1_000, max_bytes: MAX_BYTES });

  beforeAll(async () => {
    ({ fixture, app, dispose } = await startFixtureApp(engine));
    const { columns, nameLength, type, quote } = WIDE_TABLE[engine];
    const names = Array.from({ length: columns }, (_, i) => `${quote}${longName(i, nameLength)}${quote} ${type}`);
    await fixture.query(`CREATE TABLE wide (${names.join(', ')})`);
    await fixture.query(`INSERT INTO wide VALUES (${Array.from({ length: columns }, (_, i) => i).join(', ')})`);
  });
  afterAll(async () => {
    await dispose?.();
  });

  it('thousands of columns with long names: the first ones that fit, the rest left out and counted', async () => {
    const res = await query('SELECT * FROM wide');
    const result = expectBounded(res);
    const kept = result.columns.length;
    expect(kept).toBeGreaterThan(0);
    expect(result.columns_left_out).toBe(WIDE_TABLE[engine].columns - kept);
    expect(result.rows[0]).toEqual(Array.from({ length: kept }, (_, i) => i));
    if (WIDE_TABLE[engine].nameLength < 1_000) {
      expect(result.columns.map((c: { name: string }) => c.name)).toEqual(Array.from({ length: kept }, (_, i) => longName(i, WIDE_TABLE[engine].nameLength)));
    }
  });

  // PostgreSQL cuts a name to 63 bytes and MariaDB refuses an alias over 256 characters: only SQLite has longer ones.
  it.runIf(engine === 'sqlite')('a 90,000-character name is cut and marked', async () => {
    const res = await query(`SELECT 1 AS "${longName(0, 90_000)}"`);
    const result = expectToolSuccess(res);
    expect(answerBytes(res)).toBeLessThanOrEqual(BOUND);
    expect(result.columns).toHaveLength(1);
    expect(result.columns[0].name).toMatch(/^c0_x+…\[cut: 90000 characters in all\]$/);
    expect(result).toMatchObject({ is_truncated: true, truncated_reason: 'max_bytes', rows: [[1]] });
  });

  it.runIf(engine === 'duckdb')('the PIVOT over 5,000 long values (20 MB of column names) answers within max_bytes', async () => {
    const res = await query("SELECT * FROM (PIVOT (SELECT repeat('x', 4000) || i AS k, 1 AS v FROM range(5000) t(i)) ON k USING first(v))");
    const result = expectBounded(res);
    expect(result.columns.length + result.columns_left_out).toBe(5_000);
    expect(result.columns[0].name).toMatch(/^x+…\[cut: \d+ characters in all\]$/);
  });

  it('rows of multi-byte text: counted in UTF-8 bytes, in both renderings', async () => {
    const res = await query(UNICODE_ROWS[engine]);
    const result = expectToolSuccess(res);
    expect(answerBytes(res)).toBeLessThanOrEqual(BOUND);
    expect(result).toMatchObject({ is_truncated: true, truncated_reason: 'max_bytes' });
    expect(result.row_count).toBeGreaterThan(0);
  });
});

it('the fixed fields of an answer, at their largest, with its fence and note, stay within RESULTS.answerFieldsBytes', () => {
  const set = { columns: [], rows: [], truncated: true, truncatedBy: 'max_bytes' as const, cellsCut: 100_000, columnsLeftOut: 5_000, valuesAsText: 100_000, rowsAffected: Number.MAX_SAFE_INTEGER };
  const structured = toResultSet(set, 'destructive', 330_000.25);
  const serverInfo = { name: 'sluice', version: '100.100.100-beta.100' };
  // The text as sent at its longest: fenced, and the note of a cut that names a cursor.
  const text = fenced(resultText(structured), rowsCutNote(RESULTS.maxRows, RESULTS.capTokens, true));
  const answer = { content: [{ type: 'text', text }], structuredContent: structured, isError: false, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo } };
  expect(Buffer.byteLength(JSON.stringify(answer))).toBeLessThanOrEqual(RESULTS.answerFieldsBytes);
});
