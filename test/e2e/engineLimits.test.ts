import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import { expectRpcError, expectToolSuccess } from '../helpers/rpcAssertions.js';
import {
  callTool,
  mcp,
  mintToken,
  mirroredHeaders,
  modernMeta,
  type RawResponse,
  readUntil,
  sendCancelled,
  startTestApp,
  type TestApp,
} from '../helpers/testApp.js';
import { availableServers, busyBesideHeld, busySessions, createFixture, type EngineFixture, heldSessions, runningSleeps, type ServerEngine, slowSql } from '../helpers/engines.js';

/**
 * The limits of a statement on the database servers, end to end over HTTP with authentication on: its
 * timeout, each way of stopping it (cancel notification, dropped client, revoked token) and the row cap.
 * Each is checked where it matters, in the server's own activity view: the statement must be gone
 * there, not merely answered for. Afterwards nothing is left running in Sluice and its pools still work.
 */

const CANCELLED = -33002;
const TIMEOUT = -33003;

const servers = await availableServers();

/** A read of five million rows, produced by the server itself. */
const HUGE_SQL: Record<ServerEngine, string> = {
  postgres: 'SELECT * FROM generate_series(1, 5000000)',
  mysql: 'SELECT seq FROM seq_1_to_5000000',
};

// A file without a single test fails the run: where no server is up, one skipped test says why.
if (servers.length === 0) describe('statement limits on the database servers', () => it.skip('needs a PostgreSQL or MariaDB server', () => {}));

describe.each(servers)('statement limits on %s', (engine) => {
  let fixture: EngineFixture;
  let app: TestApp;
  let dataDir: string;
  let headers: Record<string, string>;
  let baseline: number;
  /** Errors thrown outside any request (Sluice runs in this process; `sluice serve` would end on one). */
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => void uncaught.push(error);

  const running = () => runningSleeps(fixture, 30);
  const busy = () => busySessions(fixture);

  /** Starts the slow statement as request `id` and resolves, once the server runs it, with its pending answer. */
  async function startSlow(id: string, callerHeaders: Record<string, string>): Promise<{ answer: Promise<RawResponse> }> {
    const answer = mcp(
      app,
      'tools/call',
      { name: 'execute_query', arguments: { connection_id: 'db', sql: slowSql(engine, 30) } },
      { id, headers: callerHeaders },
    );
    await expect.poll(running, { timeout: 5_000, interval: 25 }).toBe(1);
    // Wrapped: an async function returning the promise itself would wait for the answer.
    return { answer };
  }

  beforeAll(async () => {
    process.on('uncaughtException', onUncaught);
    fixture = await createFixture(engine);
    dataDir = mkdtempSync(join(tmpdir(), `sluice-limits-${engine}-`));
    writeConfig(dataDir, { connections: [fixture.connection] });
    app = await startTestApp({ dataDir, auth: true });
    headers = mintToken(app, `${engine} limits`).headers;
    // The pools are opened and the server's flavour known before anything is timed.
    const warm = await callTool(app, 'execute_query', { connection_id: 'db', sql: 'SELECT 1' }, { headers });
    expectToolSuccess(warm);
    baseline = app.liveActors();
  });
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    await app?.dispose();
    await fixture?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('the probe of the activity view sees nothing running before the tests start', async () => {
    expect(await running()).toBe(0);
  });

  it('timeout_seconds: 1 ends a slow statement with -33003 (HTTP 200) well before it would finish, and stops it on the server', async () => {
    const started = performance.now();
    const res = await callTool(app, 'execute_query', { connection_id: 'db', sql: slowSql(engine, 30), timeout_seconds: 1 }, { headers });
    const elapsed = performance.now() - started;
    expectRpcError(res, 200, TIMEOUT, 1);
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(5_000);
    await expect.poll(running, { timeout: 1_000, interval: 25 }).toBe(0);
  });

  it('notifications/cancelled (same token) ends the running statement with -33002 and stops it on the server within 2 s', async () => {
    const { answer } = await startSlow('cancel-me', headers);
    const notified = await sendCancelled(app, 'cancel-me', headers);
    expect({ status: notified.status, text: notified.text }).toEqual({ status: 202, text: '' });
    expectRpcError(await answer, 200, CANCELLED, 'cancel-me');
    await expect.poll(running, { timeout: 2_000, interval: 25 }).toBe(0);
  });

  it('a dropped client socket (progress stream open) stops the statement on the server within 2.5 s', async () => {
    const client = new AbortController();
    const params = { name: 'execute_query', arguments: { connection_id: 'db', sql: slowSql(engine, 30) } };
    const response = await fetch(app.url, {
      method: 'POST',
      signal: client.signal,
      headers: { ...mirroredHeaders('tools/call', params), ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'dropped',
        method: 'tools/call',
        params: { ...params, _meta: modernMeta({ progressToken: 'drop' }) },
      }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    await readUntil(reader, '"progress":0.3');
    await expect.poll(running, { timeout: 5_000, interval: 25 }).toBe(1);

    client.abort();
    await reader.cancel().catch(() => {});
    await expect.poll(running, { timeout: 2_500, interval: 25 }).toBe(0);
  });

  it('revoking the token ends its running statement with -33002 and stops it on the server', async () => {
    const doomed = mintToken(app, `${engine} doomed`);
    const { answer } = await startSlow('revoke-me', doomed.headers);
    app.tokens.revoke(doomed.id, Date.now());
    expectRpcError(await answer, 200, CANCELLED, 'revoke-me');
    await expect.poll(running, { timeout: 2_000, interval: 25 }).toBe(0);
    // The revoked token is refused from now on; the suite's own token is not disturbed.
    const refused = await callTool(app, 'execute_query', { connection_id: 'db', sql: 'SELECT 1' }, { headers: doomed.headers });
    expect(refused.status).toBe(401);
  });

  it('max_rows: 100 on five million rows returns 100 rows with is_truncated, quickly, and leaves nothing running but its held read', async () => {
    const reader = mintToken(app, `${engine} cut`);
    const started = performance.now();
    const res = await callTool(app, 'execute_query', { connection_id: 'db', sql: HUGE_SQL[engine], max_rows: 100 }, { headers: reader.headers });
    const elapsed = performance.now() - started;
    const out = expectToolSuccess(res);
    expect(out).toMatchObject({ statement_kind: 'read', row_count: 100, is_truncated: true, next_cursor: expect.any(String) });
    expect(out.rows).toEqual(Array.from({ length: 100 }, (_, i) => [i + 1]));
    expect(elapsed).toBeLessThan(5_000);
    // The rest waits behind its next_cursor, idle on purpose: one held session, nothing else running.
    await expect.poll(() => busyBesideHeld(fixture), { timeout: 2_000, interval: 25 }).toBe(0);
    expect(await heldSessions(fixture)).toBe(1);
    // Its token revoked, the read is closed and its session given back.
    app.tokens.revoke(reader.id, Date.now());
    await expect.poll(() => heldSessions(fixture), { timeout: 2_000, interval: 25 }).toBe(0);
    await expect.poll(busy, { timeout: 2_000, interval: 25 }).toBe(0);
  });

  it('afterwards nothing is left in Sluice, nothing on the server, and the pools still answer', async () => {
    await expect.poll(() => app.liveActors(), { timeout: 2_000, interval: 25 }).toBe(baseline);
    await expect.poll(busy, { timeout: 2_000, interval: 25 }).toBe(0);
    // More statements at once than either pool holds sessions: a session leaked by a stop would hang here.
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        callTool(app, 'execute_query', { connection_id: 'db', sql: `SELECT ${i + 1} AS n` }, { headers, id: i + 1 }),
      ),
    );
    answers.forEach((res, i) => expect(expectToolSuccess(res, i + 1).rows).toEqual([[i + 1]]));
    expect(app.liveActors()).toBe(baseline);
    expect(uncaught.map(String)).toEqual([]);
  });
});
