// Footprint: the resident memory of Sluice's whole process tree as SQLite connections are added and
// big results pass through, and how long the first query on a new connection takes. Linux only (/proc).
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { callTool } from './lib/mcp.mjs';
import { peakTreeRss, treeRss } from './lib/processTree.mjs';
import { SMALL_QUERY, SMALL_TABLE } from './lib/queries.mjs';
import { memoryOf } from './lib/servers.mjs';
import { addConnection } from './lib/sluiceCli.mjs';
import { RSS_SAMPLE_MS, SQLITE_CONNECTIONS } from './lib/settings.mjs';

/**
 * Adds SQLITE_CONNECTIONS copies of a small SQLite file to the running server through `sluice
 * connections add`, each queried once right after it is added. Returns the memory with one and with
 * all of them, and the latency of each first `execute_query` (HTTP included).
 */
export async function addSqliteConnections({ server, dataDir, filesDir, token }) {
  const original = join(filesDir, 'small.sqlite');
  const db = new Database(original);
  for (const statement of SMALL_TABLE) db.exec(statement);
  db.close();
  const firstQueryMs = [];
  let one;
  for (let i = 1; i <= SQLITE_CONNECTIONS; i++) {
    const id = `small-${i}`;
    const path = join(filesDir, `${id}.sqlite`);
    copyFileSync(original, path);
    await addConnection(dataDir, { id, target: ['--sqlite', path] });
    const { answer, ms } = await callTool(server.port, token, 'execute_query', { connection_id: id, sql: SMALL_QUERY });
    if (answer.result.structuredContent.row_count !== 20) throw new Error(`${id}: ${JSON.stringify(answer).slice(0, 200)}`);
    firstQueryMs.push(ms);
    if (i === 1) one = await memoryOf(server);
  }
  return { one, all: await memoryOf(server), firstQueryMs };
}

/**
 * The highest tree RSS above the reading just before, over `runs` calls of a 10,000-row statement
 * (sampled every RSS_SAMPLE_MS while each call runs and its response arrives).
 */
export async function bigResultPeak({ server, token, connectionId, sql, runs }) {
  let worst = -Infinity;
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const before = treeRss(server.pid);
    const peak = await peakTreeRss(server.pid, RSS_SAMPLE_MS, async () => {
      const { answer, wireBytes } = await callTool(server.port, token, 'execute_query', {
        connection_id: connectionId,
        sql,
        max_rows: 10_000,
        max_bytes: 16 * 2 ** 20,
      });
      const result = answer.result.structuredContent;
      if (result.row_count !== 10_000 || result.is_truncated) throw new Error(`${connectionId}: ${result.row_count} rows, truncated ${result.truncated_reason}`);
      bytes = wireBytes;
    });
    worst = Math.max(worst, peak - before);
  }
  return { peakDelta: worst, wireBytes: bytes };
}
