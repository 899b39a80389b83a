import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import type { Engine } from '../../src/db/database.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { BYPASS_CORPUS, type BypassShape } from '../helpers/bypassCorpus.js';
import { ELICITATION_META, expectInputRequired } from '../helpers/consentRoundTrip.js';
import { expectModernSuccess, expectRpcError, expectToolError } from '../helpers/rpcAssertions.js';
import { canaryFiles, databaseSnapshot } from '../helpers/databaseSnapshot.js';
import { availableEngines, createFixture, type EngineFixture } from '../helpers/engines.js';
import { callTool, mintToken, type RawResponse, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * The read-only guarantee end to end, on every engine: each shape of the bypass corpus goes through
 * `execute_query` over HTTP. With a readOnly token it is refused, either as a write the token may not
 * make (`-33007`, the classifier or the engine called it one) or as a tool error (`denied`,
 * `unsupported`, `invalid_argument`, `query_failed`); with a readWrite token from a client that can be
 * asked, it is refused or consent is asked (`input_required`, never answered here): never run as a read.
 * After each one the database, its locks and /tmp/sluice-canary-* are exactly as they were, read on the
 * fixture's own connection. Last, layer (d): what the classifier cannot read is never run as a read.
 */

const engines = await availableEngines();

const TOOL_ERRORS = ['denied', 'unsupported', 'invalid_argument', 'query_failed'] as const;
type Outcome = '-33007' | (typeof TOOL_ERRORS)[number] | 'input_required';

/** A test name: the statement on one line (control characters made visible), cut short, and why it is here. */
function label(shape: BypassShape): string {
  const sql = JSON.stringify(shape.sql).slice(1, -1);
  return `${sql.length > 60 ? `${sql.slice(0, 59)}…` : sql}  (${shape.why})`;
}

/**
 * The refusals a readOnly token may get: `-33007` (403, the token lacks tools:write) or a tool error
 * (`resultType: complete`, `isError`, text `<code>: …`). Returns which; fails on anything else.
 */
function refusal(res: RawResponse, context: string): Outcome {
  if (res.json?.error !== undefined) {
    const error = expectRpcError(res, 403, -33007, 1);
    expect(error.data?.requiredScopes, context).toContain('tools:write');
    return '-33007';
  }
  const result = expectModernSuccess(res);
  expect(result.isError, `${context} ran as a read: ${JSON.stringify(result.structuredContent)}`).toBe(true);
  expect(result.content).toHaveLength(1);
  const text = String(result.content[0]?.text);
  const code = TOOL_ERRORS.find((c) => text.startsWith(`${c}: `));
  expect(code, `${context}: unexpected tool error ${text}`).toBeDefined();
  return code!;
}

/** With a readWrite token from a client that can be asked: a refusal as above, or consent asked for exactly this statement. */
function refusalOrConsent(res: RawResponse, sql: string, context: string): Outcome {
  if (res.json?.result?.resultType === 'input_required') {
    expectInputRequired(res, sql);
    return 'input_required';
  }
  return refusal(res, context);
}

/** Statements the classifier cannot read as a read; each would write if it ran. */
const UNREADABLE: Record<Engine, string[]> = {
  sqlite: ['(SELECT id FROM sluice_canary)', 'FROBNICATE sluice_canary'],
  postgres: [
    '(SELECT id FROM sluice_canary)',
    "(SELECT nextval('sluice_canary_seq'))",
    'CALL sluice_canary_proc()',
    'FROBNICATE sluice_canary',
  ],
  mysql: ['(SELECT id FROM sluice_canary)', 'CALL sluice_canary_proc()', 'FROBNICATE sluice_canary'],
  duckdb: ['(SELECT id FROM sluice_canary)', "(SELECT nextval('sluice_canary_seq'))", 'FROBNICATE sluice_canary'],
};
/** Of those, the ones the engine itself cannot parse or prepare: refused before anyone is asked. */
const INVALID: Record<Engine, string[]> = {
  sqlite: ['(SELECT id FROM sluice_canary)', 'FROBNICATE sluice_canary', 'SELEC 1', "INSERT INTO sluice_canary (id, note) VALUE (9, 'x')"],
  postgres: ['FROBNICATE sluice_canary', 'SELEC 1', "INSERT INTO sluice_canary (id, note) VALUE (9, 'x')"],
  mysql: ['FROBNICATE sluice_canary', 'SELEC 1', "INSERT INTO sluice_canary (id, note) VALUS (9, 'x')"],
  duckdb: ['FROBNICATE sluice_canary', 'SELEC 1', "INSERT INTO sluice_canary (id, note) VALUE (9, 'x')"],
};

/** A procedure that empties the canary, for CALL: created before the first snapshot. */
const PROCEDURE: Partial<Record<Engine, string>> = {
  postgres: 'CREATE PROCEDURE sluice_canary_proc() LANGUAGE sql AS $$ DELETE FROM sluice_canary $$',
  mysql: 'CREATE PROCEDURE sluice_canary_proc() DELETE FROM sluice_canary',
};

/**
 * A function that writes, called from a SELECT: the classifier sees a read, so only the engine's
 * read-only session can tell. Sluice must then treat it as a write (scope, then consent), never run it.
 */
const HIDDEN_WRITER: Partial<Record<Engine, string>> = {
  postgres: `CREATE FUNCTION sluice_canary_insert() RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
             BEGIN INSERT INTO sluice_canary (id, note) VALUES (99, 'from a function'); RETURN 99; END $$`,
  mysql: `CREATE FUNCTION sluice_canary_insert() RETURNS INTEGER MODIFIES SQL DATA
          BEGIN INSERT INTO sluice_canary (id, note) VALUES (99, 'from a function'); RETURN 99; END`,
  // A DuckDB macro cannot write a table, but it can advance a sequence.
  duckdb: "CREATE MACRO sluice_canary_insert() AS nextval('sluice_canary_seq')",
};
const HIDDEN_WRITE = 'SELECT sluice_canary_insert() AS id';

describe.each(engines)('the read-only guarantee on %s', (engine) => {
  skipListed('readOnlyGuarantee', engine);
  let fixture: EngineFixture;
  let app: TestApp;
  let dataDir: string;
  let readOnly: Record<string, string>;
  let readWrite: Record<string, string>;
  let initial: Awaited<ReturnType<typeof databaseSnapshot>>;
  const tally: Record<'readOnly' | 'readWrite', Partial<Record<Outcome, number>>> = { readOnly: {}, readWrite: {} };
  const count = (token: 'readOnly' | 'readWrite', outcome: Outcome) => {
    tally[token][outcome] = (tally[token][outcome] ?? 0) + 1;
  };

  const shapes = BYPASS_CORPUS.filter((shape) => shape.engines.includes(engine)).map((shape) => [label(shape), shape] as const);
  const execute = (sql: string, headers: Record<string, string>, extraMeta?: Record<string, unknown>) =>
    callTool(app, 'execute_query', { connection_id: 'db', sql }, { headers, ...(extraMeta ? { extraMeta } : {}) });
  const expectUnchanged = async (context: string) => {
    expect(await databaseSnapshot(fixture), `the database or /tmp changed after ${context}`).toEqual(initial);
  };

  beforeAll(async () => {
    fixture = await createFixture(engine);
    const procedure = PROCEDURE[engine];
    if (procedure) await fixture.query(procedure);
    const hiddenWriter = HIDDEN_WRITER[engine];
    if (hiddenWriter) await fixture.query(hiddenWriter);
    dataDir = mkdtempSync(join(tmpdir(), `sluice-guarantee-${engine}-`));
    writeConfig(dataDir, { connections: [fixture.connection] });
    app = await startTestApp({ dataDir, auth: true });
    readOnly = mintToken(app, `${engine} readOnly`, 'readOnly').headers;
    readWrite = mintToken(app, `${engine} readWrite`, 'readWrite').headers;
    initial = await databaseSnapshot(fixture);
  });
  afterAll(async () => {
    console.log(`read-only guarantee on ${engine}: ${JSON.stringify(tally)}`);
    await app?.dispose();
    // Best effort: a canary file a failed run left behind would hide the next regression.
    for (const name of canaryFiles()) if (!initial?.files.includes(name)) rmSync(join('/tmp', name), { force: true });
    await fixture?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('a plain read works with the readOnly token (the refusals below are not a broken token)', async () => {
    const res = await execute('SELECT id, note FROM sluice_canary ORDER BY id', readOnly);
    const result = expectModernSuccess(res);
    expect(result.isError, JSON.stringify(result.content)).toBe(false);
    expect(result.structuredContent).toMatchObject({
      statement_kind: 'read',
      rows: [
        [1, 'one'],
        [2, 'two'],
        [3, 'three'],
      ],
    });
  });

  it.each(shapes)('readOnly token: refuses %s', async (_, { sql, why }) => {
    const context = `${JSON.stringify(sql)} (${why})`;
    count('readOnly', refusal(await execute(sql, readOnly), context));
    await expectUnchanged(context);
  });

  it.each(shapes)('readWrite token, elicitation declared: refuses or asks for %s', async (_, { sql, why }) => {
    const context = `${JSON.stringify(sql)} (${why})`;
    count('readWrite', refusalOrConsent(await execute(sql, readWrite, ELICITATION_META), sql, context));
    await expectUnchanged(context);
  });

  // SQLite has no stored functions: nothing to hide a write behind.
  if (HIDDEN_WRITER[engine]) {
    describe('a read the engine calls a write (classifier, then read-only session)', () => {
      it(`readOnly token: ${HIDDEN_WRITE} → 403 -33007 once the engine refused it`, async () => {
        const error = expectRpcError(await execute(HIDDEN_WRITE, readOnly), 403, -33007, 1);
        expect(error.data).toEqual({ requiredScopes: ['tools:read', 'tools:write'] });
        await expectUnchanged(HIDDEN_WRITE);
      });

      it(`readWrite token: ${HIDDEN_WRITE} asks for consent once the engine refused it`, async () => {
        expectInputRequired(await execute(HIDDEN_WRITE, readWrite, ELICITATION_META), HIDDEN_WRITE);
        await expectUnchanged(HIDDEN_WRITE);
      });
    });
  }

  describe('layer (d): what the classifier cannot read is never run as a read', () => {
    it.each(UNREADABLE[engine])('readOnly token: %s → 403 -33007', async (sql) => {
      const error = expectRpcError(await execute(sql, readOnly), 403, -33007, 1);
      expect(error.data).toEqual({ requiredScopes: ['tools:read', 'tools:write'] });
      await expectUnchanged(sql);
    });

    it.each(UNREADABLE[engine].filter((sql) => !INVALID[engine].includes(sql)))('readWrite token: %s asks for consent first', async (sql) => {
      expectInputRequired(await execute(sql, readWrite, ELICITATION_META), sql);
      await expectUnchanged(sql);
    });

    it.each(INVALID[engine])('readWrite token: %s does not parse or prepare → invalid_argument, and nobody is asked', async (sql) => {
      const before = app.dialogs.list().length;
      const text = expectToolError(await execute(sql, readWrite, ELICITATION_META), 'invalid_argument');
      expect(text).toMatch(/^invalid_argument: the statement is not valid: .*(syntax|near|prepare|error)/i);
      expect(expectToolError(await execute(sql, readWrite), 'invalid_argument')).toBe(text);
      expect(app.dialogs.list()).toHaveLength(before);
      await expectUnchanged(sql);
    });
  });
});
