import { copyFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callControl } from '../../src/cli/controlClient.js';
import type { Engine } from '../../src/db/database.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, type EngineFixture, startFixtureApp } from '../helpers/engines.js';
import { expectToolSuccess } from '../helpers/rpcAssertions.js';
import { callTool, mirroredHeaders, modernMeta, readUntil, sseFrames, type TestApp } from '../helpers/testApp.js';
import { unfenced } from '../helpers/dataFence.js';

/**
 * Issue 20, item 4: in-flight work on a removed (or repointed) connection ends with a clear error, and
 * the application goes on serving.
 */

/** A statement that would run far longer than the test, on each engine. */
const LONG: Record<Engine, string> = {
  sqlite: 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n',
  postgres: 'SELECT pg_sleep(60)',
  mysql: 'SELECT SLEEP(60)',
  duckdb: 'SELECT count(*) FROM range(1000000000) a, range(1000000000) b',
};

const engines = await availableEngines();

/** Starts LONG on `db`, returning the rest of its streamed response once it runs in the database. */
async function startLong(app: TestApp, engine: Engine): Promise<() => Promise<any>> {
  const params = { name: 'execute_query', arguments: { connection_id: 'db', sql: LONG[engine], timeout_seconds: 120 } };
  const response = await fetch(app.url, {
    method: 'POST',
    headers: mirroredHeaders('tools/call', params),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...params, _meta: modernMeta({ progressToken: 1 }) } }),
  });
  const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  let text = await readUntil(reader, '"progress":0.3');
  // 0.3 is sent just before the statement goes to the driver: give it time to be running there.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return async () => {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
    return sseFrames(text).data.find((frame) => 'result' in frame || 'error' in frame);
  };
}

function expectEndedWith(final: any, message: string) {
  expect(final).toMatchObject({ jsonrpc: '2.0', id: 1, result: { isError: true } });
  expect(final.result.content).toEqual([{ type: 'text', text: expect.stringMatching(/^not_connected: /) }]);
  // The driver's failure is fenced as a database's message is (capabilities/dataFence.ts).
  expect(unfenced(final.result.content[0].text.slice('not_connected: '.length))).toBe(message);
}

describe.each(engines)('a connection removed while a statement runs on %s', (engine) => {
  skipListed('connectionRemoval', engine);
  let app: TestApp;
  let dispose: () => Promise<void>;
  let fixture: EngineFixture;

  beforeAll(async () => {
    ({ app, dispose, fixture } = await startFixtureApp(engine));
  });
  afterAll(async () => {
    await dispose?.();
  });

  it('ends the statement with an error naming the removal, at once, and the app stays healthy', async () => {
    const finish = await startLong(app, engine);
    const started = performance.now();
    await callControl(app.dataDir, 'connections.remove', { id: 'db' });
    expectEndedWith(await finish(), 'connection "db" was removed while the statement ran');
    expect(performance.now() - started).toBeLessThan(5_000);

    const list = expectToolSuccess(await callTool(app, 'list_connections', {}));
    expect(list.connections).toEqual([]);
    await callControl(app.dataDir, 'connections.add', { ...fixture.connection, check: true });
    const again = expectToolSuccess(await callTool(app, 'execute_query', { connection_id: 'db', sql: 'SELECT count(*) FROM books' }));
    expect(again.rows).toEqual([[25]]);
  });
});

describe('a connection repointed while a statement runs', () => {
  let app: TestApp;
  let dispose: () => Promise<void>;
  let path: string;

  beforeAll(async () => {
    const started = await startFixtureApp('sqlite');
    ({ app, dispose } = started);
    path = `${(started.fixture.connection as { path: string }).path}.copy`;
    copyFileSync((started.fixture.connection as { path: string }).path, path);
  });
  afterAll(async () => {
    await dispose?.();
  });

  it('ends the statement with an error saying so; the next call uses the new file', async () => {
    const finish = await startLong(app, 'sqlite');
    await callControl(app.dataDir, 'connections.update', { id: 'db', path });
    expectEndedWith(await finish(), 'connection "db" was changed to point elsewhere while the statement ran');
    const after = expectToolSuccess(await callTool(app, 'execute_query', { connection_id: 'db', sql: 'SELECT count(*) FROM books' }));
    expect(after.rows).toEqual([[25]]);
  });
});
