import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/db/database.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { expectToolError } from '../helpers/rpcAssertions.js';
import { availableEngines, startFixtureApp } from '../helpers/engines.js';
import { callTool, type TestApp } from '../helpers/testApp.js';

/**
 * The activity log keeps codes and digests, never statement text or values (issue 16, finding 9): a
 * driver's error message quoted fragments and bound values into its `error` column. Each statement
 * below fails with a message that quotes a canary; the canary must appear nowhere in the log's files
 * (WAL included), while the row keeps the tool error code and the engine's own code.
 */

const engines = await availableEngines();
const CANARY = 'zq7canaryvalue';

/** Reads that fail with a message quoting the canary (from the SQL text or a bound value). */
const FAILING: Record<Engine, { sql: string; params?: unknown[]; engineCode: RegExp }[]> = {
  sqlite: [
    { sql: `SELECT * FROM ${CANARY}_missing`, engineCode: /SQLITE_ERROR/ },
    { sql: `SELECT ${CANARY}(1)`, engineCode: /SQLITE_ERROR/ },
  ],
  postgres: [
    { sql: 'SELECT $1::int', params: [CANARY], engineCode: /22P02/ },
    { sql: `SELECT * FROM ${CANARY}_missing`, engineCode: /42P01/ },
  ],
  mysql: [
    { sql: `SELECT * FROM ${CANARY}_missing`, engineCode: /1146/ },
    { sql: `SELECT ${CANARY}_column FROM books`, engineCode: /1054/ },
  ],
  // DuckDB's code is the type its message starts with.
  duckdb: [
    { sql: 'SELECT $1::INTEGER', params: [CANARY], engineCode: /Conversion/ },
    { sql: `SELECT * FROM ${CANARY}_missing`, engineCode: /Catalog/ },
  ],
};

describe.each(engines)('no statement text or value in the activity log on %s', (engine) => {
  skipListed('activityCodesOnly', engine);
  let app: TestApp;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ app, dispose } = await startFixtureApp(engine));
  });
  afterAll(async () => {
    await dispose?.();
  });

  it('failing statements leave only codes: the canary is in the answer, never in the log', async () => {
    for (const { sql, params, engineCode } of FAILING[engine]) {
      const res = await callTool(app, 'execute_query', { connection_id: 'db', sql, ...(params ? { params } : {}) });
      expect(expectToolError(res, 'query_failed')).toContain(CANARY);
      const row = app.activity.list({ category: 'tool' })[0];
      expect(row).toMatchObject({ action: 'execute_query', outcome: 'error' });
      expect(row?.error).toMatch(/^query_failed \(.+\)$/);
      expect(row?.error).toMatch(engineCode);
    }
    expect(JSON.stringify(app.activity.list({}))).not.toContain(CANARY);
    for (const file of readdirSync(app.dataDir).filter((name) => name.startsWith('activity'))) {
      expect(readFileSync(join(app.dataDir, file)).includes(CANARY), file).toBe(false);
    }
  });
});
