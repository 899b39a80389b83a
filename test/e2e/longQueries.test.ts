import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryProcesses } from '../helpers/queryProcesses.js';
import { callTool, mirroredHeaders, modernMeta, readUntil, startTestApp, type TestApp } from '../helpers/testApp.js';

const SLOW_SQL =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 500000000) SELECT count(*) FROM c';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.dispose());

/** Starts the slow statement with a progress token and resolves once its 0.3 frame says it is running. */
async function startSlowQuery(signal: AbortSignal) {
  const params = { name: 'execute_query', arguments: { connection_id: 'demo', sql: SLOW_SQL } };
  const response = await fetch(app.url, {
    method: 'POST',
    signal,
    headers: mirroredHeaders('tools/call', params),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'slow',
      method: 'tools/call',
      params: { ...params, _meta: modernMeta({ progressToken: 1 }) },
    }),
  });
  const reader = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream())
    .getReader();
  await readUntil(reader, '"progress":0.3');
  return reader;
}

describe('long SQLite queries', () => {
  it('run off the event loop: other requests are answered meanwhile, and a dropped client stops the query', async () => {
    const client = new AbortController();
    const reader = await startSlowQuery(client.signal);
    const [running] = queryProcesses();
    expect(running).toBeGreaterThan(0);

    const started = performance.now();
    const other = await callTool(app, 'list_connections', {});
    expect(other.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1_000);

    client.abort();
    await reader.cancel().catch(() => {});
    await expect.poll(queryProcesses, { timeout: 1_500, interval: 50 }).not.toContain(running);
  });

  it('a statement past its timeout_seconds is stopped in the database and ends with -33003 (HTTP 200)', async () => {
    // The one warm process, which takes the statement.
    const before = queryProcesses();
    expect(before).toHaveLength(1);
    const res = await callTool(app, 'execute_query', {
      connection_id: 'demo',
      sql: SLOW_SQL,
      timeout_seconds: 1,
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -33003 } });
    // The killed process is replaced by one idle process, kept warm: nothing is left running the statement.
    await expect
      .poll(queryProcesses, { timeout: 1_500, interval: 50 })
      .toSatisfy((pids: number[]) => pids.length === 1 && !before.includes(pids[0]!));
    const after = await callTool(app, 'execute_query', { connection_id: 'demo', sql: 'SELECT 1' });
    expect(after.json.result.structuredContent.rows).toEqual([[1]]);
  });
});
