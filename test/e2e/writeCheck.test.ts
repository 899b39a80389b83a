import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import { ACCEPTED, CONSENT_KEY, ELICITATION_META, expectInputRequired, repeatToolCall } from '../helpers/consentRoundTrip.js';
import { availableEngines, createFixture, type EngineFixture } from '../helpers/engines.js';
import type { Engine } from '../../src/db/database.js';
import { expectToolError, expectToolSuccess } from '../helpers/rpcAssertions.js';
import { callTool, mintToken, type RawResponse, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * A write is checked against the catalogue before anyone is asked (issue 29, item 4). On every engine,
 * a write that names a table or column that does not exist ends at once with the tool error it gives
 * when run — `query_failed` and the database's own message, the one a read naming the same table gets —
 * with no `input_required` for a client that can be asked and no console dialog for one that cannot.
 * A write that can run still asks. PostgreSQL checks by preparing the statement on a write session, in
 * a read-only transaction, and deallocating it: nothing is left on the pooled session. It also checks
 * what PREPARE does not take: the statement an EXPLAIN ANALYZE wraps, the table DDL changes (it must
 * exist), the procedure a CALL names.
 */

const engines = await availableEngines();

/** The database's message for the missing table `missing`, as every statement naming it gets it. */
const MISSING_TABLE: Record<Engine, (database: string) => string> = {
  sqlite: () => 'query_failed: no such table: missing',
  postgres: () => 'query_failed: relation "missing" does not exist',
  mysql: (database) => `query_failed: Table '${database}.missing' doesn't exist`,
  duckdb: () => 'query_failed: Catalog Error: Table with name missing does not exist!',
};

describe.each(engines)('the check before consent on %s', (engine) => {
  let fixture: EngineFixture;
  let app: TestApp;
  let dataDir: string;
  let headers: Record<string, string>;
  const execute = (sql: string, extraMeta?: Record<string, unknown>) =>
    callTool(app, 'execute_query', { connection_id: 'db', sql }, { headers, ...(extraMeta ? { extraMeta } : {}) });
  const missingTable = () => MISSING_TABLE[engine](fixture.database);
  /** DuckDB's message goes on with a suggestion and the statement's text, which differ between statements. */
  const firstLine = (text: string) => (engine === 'duckdb' ? text.split('\n')[0] : text);

  /** The call, with any console dialog that opens for `sql` counted and denied so that the call ends. */
  async function withoutClientConsent(sql: string): Promise<{ res: RawResponse; dialogs: number }> {
    let dialogs = 0;
    let settled = false;
    const call = execute(sql).finally(() => {
      settled = true;
    });
    while (!settled) {
      for (const dialog of app.dialogs.list().filter((d) => d.statement === sql)) {
        dialogs++;
        app.dialogs.answer(dialog.id, 'deny');
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return { res: await call, dialogs };
  }

  beforeAll(async () => {
    fixture = await createFixture(engine);
    dataDir = mkdtempSync(join(tmpdir(), `sluice-check-${engine}-`));
    writeConfig(dataDir, { connections: [fixture.connection] });
    app = await startTestApp({ dataDir, auth: true });
    headers = mintToken(app, `${engine} readWrite`, 'readWrite').headers;
  });
  afterAll(async () => {
    await app?.dispose();
    await fixture?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it.each(['UPDATE missing SET v = 1 WHERE id = 1', 'INSERT INTO missing (v) VALUES (1)', 'DELETE FROM missing WHERE id = 1'])(
    '%s → the missing table’s query_failed, as a read naming it gets, and no input_required',
    async (sql) => {
      const text = expectToolError(await execute(sql, ELICITATION_META), 'query_failed');
      expect(firstLine(text)).toBe(missingTable());
      const read = expectToolError(await execute('SELECT v FROM missing WHERE id = 1'), 'query_failed');
      expect(firstLine(text)).toBe(firstLine(read));
      expect(app.dialogs.list()).toEqual([]);
    },
  );

  it('a missing column is refused the same way', async () => {
    const text = expectToolError(await execute('UPDATE books SET nope = 1 WHERE id = 1', ELICITATION_META), 'query_failed');
    expect(text).toMatch(/nope/);
  });

  it('a client that cannot be asked gets the same error and no console dialog opens', async () => {
    const sql = 'UPDATE missing SET v = 1 WHERE id = 1';
    const { res, dialogs } = await withoutClientConsent(sql);
    expect({ dialogs, text: firstLine(expectToolError(res, 'query_failed')) }).toEqual({ dialogs: 0, text: missingTable() });
  });

  it('a write that can run still asks, every time (nothing the check left on a session gets in the way)', async () => {
    const sql = "UPDATE books SET title = 'x' WHERE id = $1";
    const statement = engine === 'postgres' || engine === 'duckdb' ? sql : sql.replace('$1', '?');
    for (let i = 0; i < 3; i++) expectInputRequired(await execute(statement, ELICITATION_META), statement);
  });

  if (engine === 'postgres') {
    it.each([
      ['ALTER TABLE missing ADD COLUMN w integer', 'query_failed: relation "missing" does not exist'],
      ['CREATE INDEX ON missing (v)', 'query_failed: relation "missing" does not exist'],
      ['ALTER TABLE public.missing RENAME TO gone', 'query_failed: relation "public.missing" does not exist'],
      ['CALL missing_procedure(1)', 'query_failed: procedure missing_procedure does not exist'],
      ['EXPLAIN ANALYZE UPDATE missing SET v = 1 WHERE id = 1', 'query_failed: relation "missing" does not exist'],
      ['EXPLAIN (ANALYZE, FORMAT JSON) DELETE FROM missing WHERE id = 1', 'query_failed: relation "missing" does not exist'],
    ])('%s → %s before anyone is asked', async (sql, error) => {
      expect(expectToolError(await execute(sql, ELICITATION_META), 'query_failed')).toBe(error);
      expect(app.dialogs.list()).toEqual([]);
    });

    it.each([
      'ALTER TABLE books ADD COLUMN IF NOT EXISTS w integer',
      'ALTER TABLE IF EXISTS missing ADD COLUMN w integer',
      'CREATE INDEX ON books (title)',
      'EXPLAIN ANALYZE UPDATE books SET title = title WHERE id = 1',
    ])('%s, which can run, still asks', async (sql) => {
      expectInputRequired(await execute(sql, ELICITATION_META), sql);
    });

    it('the check leaves no prepared statement on the session it used', async () => {
      // A write that reads the session's prepared statements: approved, it runs on the write session its
      // own check used and gave back last.
      const sql = 'WITH w AS (UPDATE books SET title = title WHERE id = 1 RETURNING 1) SELECT count(*)::int FROM pg_prepared_statements';
      const args = { connection_id: 'db', sql };
      const requestState = expectInputRequired(await execute(sql, ELICITATION_META), sql);
      const res = await repeatToolCall(app, 'execute_query', args, { requestState, inputResponses: { [CONSENT_KEY]: ACCEPTED } }, { headers, extraMeta: ELICITATION_META });
      expect(expectToolSuccess(res).rows).toEqual([[0]]);
    });
  }
});
