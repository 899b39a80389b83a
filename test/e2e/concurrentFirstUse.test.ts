import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import { expectToolSuccess } from '../helpers/rpcAssertions.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, createFixture, type EngineFixture } from '../helpers/engines.js';
import { callTool, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * The first statements on a fresh connection, all at once (issue 16, finding 4): on MySQL/MariaDB four
 * of them once took every read session, each then waiting for a version query that needed a fifth, and
 * the connection hung for everyone. Every engine must answer them all, and keep answering after.
 */

const engines = await availableEngines();
const AT_ONCE = 8;

describe.each(engines)('concurrent first use on %s', (engine) => {
  skipListed('concurrentFirstUse', engine);
  let fixture: EngineFixture | undefined;
  let app: TestApp | undefined;
  let dataDir: string | undefined;

  afterEach(async () => {
    await app?.dispose();
    await fixture?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it(`${AT_ONCE} first queries at once on a fresh connection all answer`, async () => {
    fixture = await createFixture(engine);
    dataDir = mkdtempSync(join(tmpdir(), `sluice-first-${engine}-`));
    writeConfig(dataDir, { connections: [fixture.connection] });
    app = await startTestApp({ dataDir });
    const running = app;
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, i) =>
        callTool(running, 'execute_query', { connection_id: 'db', sql: `SELECT ${i + 1}` }, { id: i + 1 }),
      ),
    );
    answers.forEach((res, i) => expect(expectToolSuccess(res, i + 1).rows).toEqual([[i + 1]]));
    expect(expectToolSuccess(await callTool(running, 'execute_query', { connection_id: 'db', sql: 'SELECT 42' })).rows).toEqual([[42]]);
  }, 15_000);
});
