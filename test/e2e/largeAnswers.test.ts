import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESULTS } from '../../src/core/contract.js';
import { engineModule } from '../../src/db/engines/registry.js';
import type { Engine } from '../../src/db/database.js';
import { availableEngines, startFixtureApp } from '../helpers/engines.js';
import { worstLoopDelay } from '../helpers/loopDelay.js';
import { mirroredHeaders, modernMeta, sseFrames, type TestApp } from '../helpers/testApp.js';

/**
 * A read at the `max_bytes` cap, 16 MiB (some 1,300 rows of 20 cells of 200 characters), on every
 * engine: its rows are read with turns between, serialised a batch at a time and sized to the token
 * budget, and a large body is encoded and written a piece at a time, so the request never holds the
 * event loop for 50 ms (built and written in one turn: 40 to 178 ms, docs/performance.md), and the
 * answer's bytes are exactly `JSON.stringify` of what they say.
 */

/** A cell of 200 characters that JSON escapes (the quote) and UTF-8 encodes in two bytes (the é). */
const CELLS = Array.from({ length: 20 }, (_, i) => `c${i}`);
const SQL: Record<Engine, string> = {
  sqlite: `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) SELECT ${CELLS.map((c) => `replace(hex(zeroblob(40)), '00', 'ab"cé') AS ${c}`).join(', ')} FROM n`,
  postgres: `SELECT ${CELLS.map((c) => `repeat('ab"cé', 40) AS ${c}`).join(', ')} FROM generate_series(1, 3000)`,
  mysql: `SELECT ${CELLS.map((c) => `REPEAT('ab"cé', 40) AS ${c}`).join(', ')} FROM seq_1_to_3000`,
  duckdb: `SELECT ${CELLS.map((c) => `repeat('ab"cé', 40) AS ${c}`).join(', ')} FROM range(1, 3001) t(i)`,
};

/** Posts `tools/call` and gathers the body's bytes as they come, without decoding them in between. */
function postForBytes(app: TestApp, args: Record<string, unknown>, extraMeta: Record<string, unknown> = {}): Promise<Buffer> {
  const params = { name: 'execute_query', arguments: args };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...params, _meta: modernMeta(extraMeta) } });
  return new Promise((resolve, reject) => {
    const req = request(app.url, { method: 'POST', headers: mirroredHeaders('tools/call', params) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(Buffer.concat(chunks)));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const engines = await availableEngines();

describe.each(engines)('a 16 MiB read answered on %s', (engine) => {
  let app: TestApp;
  let dispose: () => Promise<void>;
  const args = { connection_id: 'db', sql: SQL[engine], max_rows: RESULTS.maxRows, max_bytes: RESULTS.capBytes, max_tokens: RESULTS.capTokens };

  beforeAll(async () => {
    ({ app, dispose } = await startFixtureApp(engine));
    // Warm: the query process, the sessions and the code paths, so that the measured call is the answer's.
    await postForBytes(app, { ...args, max_bytes: RESULTS.defaultBytes });
  }, 120_000);
  afterAll(async () => {
    await dispose?.();
  });

  /**
   * The answer's bytes are `JSON.stringify` of its value; its rows, read to the 16 MiB budget, are cut to
   * the token budget (`max_tokens` at its cap), in `structuredContent` as in the text.
   */
  const expectExact = (text: string, message: unknown, statementKind = true) => {
    expect(text).toBe(JSON.stringify(message));
    const { result } = message as { result: { structuredContent: Record<string, unknown>; content: { text: string }[] } };
    expect(result.structuredContent).toMatchObject({ is_truncated: true, truncated_reason: 'max_tokens', ...(statementKind ? { statement_kind: 'read' } : {}) });
    const rows = result.structuredContent.rows as string[][];
    expect(result.structuredContent.row_count).toBe(rows.length);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.length === 20 && row.every((cell) => cell === 'ab"cé'.repeat(40)))).toBe(true);
    const line = CELLS.map(() => JSON.stringify('ab"cé'.repeat(40))).join('\t');
    expect(result.content[0]?.text.split('\n').filter((text) => text === line)).toHaveLength(rows.length);
  };

  it('as JSON: holds the event loop under 50 ms, its bytes exactly JSON.stringify of what they say', async () => {
    let body: Buffer = Buffer.alloc(0);
    const worst = await worstLoopDelay(async () => {
      body = await postForBytes(app, args);
    });
    const text = body.toString('utf8');
    expectExact(text, JSON.parse(text));
    expect(worst).toBeLessThan(50);
  }, 120_000);

  it('as the last event of a progress stream: the same', async () => {
    let body: Buffer = Buffer.alloc(0);
    const worst = await worstLoopDelay(async () => {
      body = await postForBytes(app, args, { progressToken: 'big' });
    });
    const text = body.toString('utf8');
    const last = text.slice(text.lastIndexOf('data: ') + 'data: '.length, -2);
    expect(sseFrames(text).data.at(-1)).toEqual(JSON.parse(last));
    expectExact(last, JSON.parse(last));
    expect(worst).toBeLessThan(50);
  }, 120_000);

  it.runIf(engineModule(engine).holdsReads === true)('as a page read on behind a next_cursor: the same', async () => {
    const first = JSON.parse((await postForBytes(app, { ...args, max_bytes: RESULTS.defaultBytes })).toString('utf8')) as {
      result: { structuredContent: { next_cursor: string } };
    };
    let body: Buffer = Buffer.alloc(0);
    const worst = await worstLoopDelay(async () => {
      body = await postForBytes(app, { connection_id: 'db', cursor: first.result.structuredContent.next_cursor, max_rows: RESULTS.maxRows, max_bytes: RESULTS.capBytes, max_tokens: RESULTS.capTokens });
    });
    const text = body.toString('utf8');
    expectExact(text, JSON.parse(text), false);
    expect(worst).toBeLessThan(50);
  }, 120_000);
});
