// execute_query returning 10,000 rows over HTTP, against the raw driver in the benchmark's process plus
// JSON.stringify of the same rows. Sluice's side ends when the whole JSON text has reached the client,
// as the raw side ends with the JSON text in memory; the client's own parse is timed apart. Turns
// alternate, so that both sides meet the same machine.
import { performance } from 'node:perf_hooks';
import { headersFor, rpc } from './lib/mcp.mjs';
import { median } from './lib/stats.mjs';

/** `raw` runs the statement with the driver and returns the rows; medians in ms after `turns.warmUp` turns. */
export async function rowsAgainstRaw({ port, token, connectionId, sql, raw, turns }) {
  const body = rpc(2, 'tools/call', { name: 'execute_query', arguments: { connection_id: connectionId, sql, max_rows: 10_000 } });
  const headers = headersFor('tools/call', 'execute_query', token);
  const delivered = [];
  const parsed = [];
  const rawTimes = [];
  for (let i = 0; i < turns.warmUp + turns.kept; i++) {
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers, body });
    const text = await response.text();
    const arrived = performance.now();
    const answer = JSON.parse(text);
    const done = performance.now();
    if (answer.result?.structuredContent?.row_count !== 10_000) throw new Error(`execute_query on ${connectionId}: ${text.slice(0, 200)}`);
    const rawStarted = performance.now();
    const rows = await raw();
    JSON.stringify({ rows });
    const rawDone = performance.now();
    if (rows.length !== 10_000) throw new Error(`raw driver on ${connectionId}: ${rows.length} rows`);
    if (i < turns.warmUp) continue;
    delivered.push(arrived - started);
    parsed.push(done - started);
    rawTimes.push(rawDone - rawStarted);
  }
  return { sluice: median(delivered), parsed: median(parsed), raw: median(rawTimes), n: delivered.length };
}
