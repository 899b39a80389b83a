import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/db/database.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { expectModernSuccess, expectToolSuccess } from '../helpers/rpcAssertions.js';
import { availableEngines, startFixtureApp } from '../helpers/engines.js';
import { callTool, mcp, mintToken, mirroredHeaders, modernMeta, type TestApp } from '../helpers/testApp.js';
import { SUBSCRIPTIONS } from '../../src/core/contract.js';

/**
 * One token cannot starve the rest (issue 16, finding 4): 64 listen streams on one token once gave
 * every other client 503, and a few long statements from one token took a connection's whole pool, so
 * a second token's `SELECT 1` went unanswered. Each token now has its share: 8 streams, and half of
 * each connection's sessions.
 */

const engines = await availableEngines();

/** A statement that runs until its 3 s timeout stops it. */
const LONG: Record<Engine, string> = {
  sqlite: 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n',
  postgres: 'SELECT pg_sleep(30)',
  mysql: 'SELECT SLEEP(30)',
  duckdb: 'SELECT count(*) FROM range(1000000000) a, range(1000000000) b',
};

describe.each(engines)('per-token shares on %s', (engine) => {
  skipListed('tokenShares', engine);
  let app: TestApp;
  let dispose: () => Promise<void>;
  let hog: Record<string, string>;
  let other: Record<string, string>;

  beforeAll(async () => {
    ({ app, dispose } = await startFixtureApp(engine, { auth: true }));
    hog = mintToken(app, 'hog', 'readOnly').headers;
    other = mintToken(app, 'other', 'readOnly').headers;
  });
  afterAll(async () => {
    await dispose?.();
  });

  it('while one token runs six long statements, another token’s SELECT 1 answers at once', async () => {
    const hogging = Array.from({ length: 6 }, (_, i) =>
      callTool(app, 'execute_query', { connection_id: 'db', sql: LONG[engine], timeout_seconds: 3 }, { id: `hog-${i}`, headers: hog }),
    );
    await expect.poll(() => app.liveActors(), { timeout: 3_000 }).toBeGreaterThanOrEqual(6);
    const started = performance.now();
    const quick = await callTool(app, 'execute_query', { connection_id: 'db', sql: 'SELECT 1' }, { headers: other });
    expect(expectToolSuccess(quick).rows).toEqual([[1]]);
    expect(performance.now() - started).toBeLessThan(1_500);
    // The hog's statements end by their timeout, each in turn within its own share.
    for (const pending of hogging) expect((await pending).status).toBe(200);
  }, 40_000);

  it.runIf(engine === 'sqlite')(`a token may hold ${SUBSCRIPTIONS.maxStreamsPerToken} listen streams; the next is 429 -33010, and another token still listens`, async () => {
    const controllers: AbortController[] = [];
    const open = async (headers: Record<string, string>, id: number) => {
      const controller = new AbortController();
      controllers.push(controller);
      const params = { notifications: { resourcesListChanged: true }, _meta: modernMeta() };
      const res = await fetch(app.url, {
        method: 'POST',
        headers: { ...mirroredHeaders('subscriptions/listen', {}), ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params }),
        signal: controller.signal,
      });
      return res;
    };
    try {
      for (let i = 0; i < SUBSCRIPTIONS.maxStreamsPerToken; i++) expect((await open(hog, i)).status).toBe(200);
      const refused = await open(hog, 99);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', id: 99, error: { code: -33010 } });
      expect((await open(other, 100)).status).toBe(200);
      // Streams are not requests: the hog's ordinary calls still pass.
      expectModernSuccess(await mcp(app, 'tools/list', {}, { headers: hog }));
    } finally {
      for (const controller of controllers) controller.abort();
    }
  });
});
