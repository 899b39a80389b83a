import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SimulatedClock } from 'xstate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import type { PermissionLevel } from '../../src/auth/levels.js';
import { createDemoDatabase } from '../../src/db/demo/seed.js';
import { ACCEPTED, CONSENT_KEY, ELICITATION_META, expectInputRequired, repeatToolCall, tamperSignature } from '../helpers/consentRoundTrip.js';
import { eventually } from '../helpers/polling.js';
import { expectModernSuccess, expectRpcError, expectToolError, expectToolSuccess } from '../helpers/rpcAssertions.js';
import { stateCapturingPrompt } from '../helpers/stateCapturingPrompt.js';
import { callTool, mcp, type RawResponse, scalar, sendCancelled, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * Writes need the user's consent. Contract: "input_required result", "Input response", "Tool call needing
 * approval", "Other records" (requestState), "Cache hints" rule 3, "Request in flight", "Tool errors";
 * decisions.md: "Scopes and permission levels", "Catalogue" (execute_query), "Activity log".
 */

type Minted = { id: string; name: string; headers: Record<string, string> };

function mint(app: TestApp, clock: SimulatedClock, level: PermissionLevel, name = `${level} consent token`): Minted {
  const { record, plaintext } = app.tokens.mint({ name, level, connections: 'all', expiresInDays: null, now: clock.now() });
  return { id: record.id, name: record.name, headers: { authorization: `Bearer ${plaintext}` } };
}

/** A clock the suite moves by hand, starting at the real time (jose checks `iat`/`exp` against it). */
function simulatedClockAtNow(): SimulatedClock {
  const clock = new SimulatedClock();
  clock.set(Date.now());
  return clock;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const unique = () => randomBytes(4).toString('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const accept = { [CONSENT_KEY]: ACCEPTED };
const CLIENT_INFO = { 'io.modelcontextprotocol/clientInfo': { name: 'consent-suite', title: 'Consent suite', version: '1.0.0' } };

/**
 * A support directory with two writable connections: `demo` (the demo bookshop plus scratch tables the
 * destructive tests drop or empty) and `other` (a small file with its own `genres` table).
 */
function twoConnectionDir(): { dir: string; demoPath: string; otherPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-consent-'));
  const demoPath = join(dir, 'demo.sqlite');
  createDemoDatabase(demoPath);
  const demo = new Database(demoPath);
  demo.exec(`
    CREATE TABLE drop_me (id INTEGER PRIMARY KEY, label TEXT NOT NULL);
    INSERT INTO drop_me (label) VALUES ('a'), ('b'), ('c');
    CREATE TABLE empty_me (id INTEGER PRIMARY KEY, label TEXT NOT NULL);
    INSERT INTO empty_me (label) VALUES ('a'), ('b'), ('c');
    CREATE TABLE keep_me (id INTEGER PRIMARY KEY, label TEXT NOT NULL);
    INSERT INTO keep_me (label) VALUES ('a'), ('b');
  `);
  demo.close();
  const otherPath = join(dir, 'other.sqlite');
  const other = new Database(otherPath);
  other.exec('CREATE TABLE genres (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)');
  other.close();
  const common = { engine: 'sqlite' as const, externalAccess: 'readWrite' as const, aiPolicy: 'askEachTime' as const };
  writeConfig(dir, {
    connections: [
      { id: 'demo', name: 'Demo bookshop', path: demoPath, ...common },
      { id: 'other', name: 'Other file', path: otherPath, ...common },
    ],
  });
  return { dir, demoPath, otherPath };
}

describe('consent through elicitation (a client that declares it)', () => {
  const clock = simulatedClockAtNow();
  const capture = stateCapturingPrompt('execute_query');
  let fixture: ReturnType<typeof twoConnectionDir>;
  let app: TestApp;
  let readOnly: Minted;
  let readWrite: Minted;
  let secondReadWrite: Minted;
  let fullAccess: Minted;

  beforeAll(async () => {
    fixture = twoConnectionDir();
    app = await startTestApp({ dataDir: fixture.dir, auth: true, clock, extraCapabilities: [capture.module] });
    readOnly = mint(app, clock, 'readOnly');
    readWrite = mint(app, clock, 'readWrite');
    secondReadWrite = mint(app, clock, 'readWrite', 'second readWrite token');
    fullAccess = mint(app, clock, 'fullAccess');
  });
  afterAll(async () => {
    await app?.dispose();
    rmSync(fixture.dir, { recursive: true, force: true });
  });

  const genresNamed = (name: string, path = fixture.demoPath) =>
    scalar(path, 'SELECT count(*) FROM genres WHERE name = ?', name);

  /** The first call of a round trip: asserts `input_required` for `sql` and returns the requestState. */
  async function ask(args: Record<string, unknown>, token: Minted = readWrite, tool = 'execute_query') {
    const res = await callTool(app, tool, args, { headers: token.headers, extraMeta: ELICITATION_META });
    return expectInputRequired(res, String(args.sql));
  }

  /** The repeated call, same arguments, with the state and the given input responses. */
  function answer(
    args: Record<string, unknown>,
    requestState: unknown,
    inputResponses: unknown = accept,
    token: Minted = readWrite,
    tool = 'execute_query',
  ): Promise<RawResponse> {
    return repeatToolCall(app, tool, args, { requestState, inputResponses }, { headers: token.headers, extraMeta: ELICITATION_META });
  }

  /** The full accepted round trip; returns the executed statement's result set. */
  async function approvedRun(sql: string, token: Minted = readWrite, tool = 'execute_query') {
    const args = { connection_id: 'demo', sql };
    const requestState = await ask(args, token, tool);
    return expectToolSuccess(await answer(args, requestState, accept, token, tool));
  }

  /** A read through Sluice (no consent needed): the rows of `sql`. */
  async function read(sql: string): Promise<unknown[][]> {
    const out = expectToolSuccess(await callTool(app, 'execute_query', { connection_id: 'demo', sql }, { headers: readWrite.headers }));
    expect(out.statement_kind).toBe('read');
    return out.rows;
  }

  async function tableNames(): Promise<string[]> {
    const out = expectToolSuccess(await callTool(app, 'list_tables', { connection_id: 'demo' }, { headers: readWrite.headers }));
    return (out.tables as { name: string }[]).map((t) => t.name);
  }

  describe('the first call: input_required', () => {
    it('a write answers exactly resultType, inputRequests.approve_statement (elicitation form), requestState, serverInfo; no cache hints; nothing written', async () => {
      const name = `Pending ${unique()}`;
      const sql = `INSERT INTO genres (name) VALUES ('${name}')`;
      const before = scalar(fixture.demoPath, 'SELECT count(*) FROM genres');
      const res = await callTool(app, 'execute_query', { connection_id: 'demo', sql }, { id: 'first', headers: readWrite.headers, extraMeta: ELICITATION_META });
      expectInputRequired(res, sql, 'first');
      expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
      expect(scalar(fixture.demoPath, 'SELECT count(*) FROM genres')).toBe(before);
      expect(genresNamed(name)).toBe(0);
    });

    it('every consent-needing kind asks: write (UPDATE), ddl (CREATE TABLE); a read runs at once', async () => {
      for (const sql of ['UPDATE genres SET name = name WHERE id = 1', 'CREATE TABLE never_made (id INTEGER)']) {
        await ask({ connection_id: 'demo', sql });
      }
      expect(await tableNames()).not.toContain('never_made');
      const out = expectToolSuccess(
        await callTool(app, 'execute_query', { connection_id: 'demo', sql: 'SELECT 1 AS one' }, { headers: readWrite.headers, extraMeta: ELICITATION_META }),
      );
      expect(out).toMatchObject({ statement_kind: 'read', rows: [[1]] });
    });
  });

  describe('the repeated call, accepted: the statement runs (never cached)', () => {
    it('INSERT → statement_kind write, rows_affected 1; a later read sees the row', async () => {
      const name = `Approved ${unique()}`;
      const out = await approvedRun(`INSERT INTO genres (name) VALUES ('${name}')`);
      expect(out).toMatchObject({ statement_kind: 'write', rows_affected: 1, row_count: 0, rows: [], is_truncated: false });
      expect(await read(`SELECT count(*) FROM genres WHERE name = '${name}'`)).toEqual([[1]]);
    });

    it('UPDATE … WHERE → statement_kind write, rows_affected = the rows matched; a later read sees the change', async () => {
      const matched = scalar(fixture.demoPath, 'SELECT count(*) FROM books WHERE genre_id = 2') as number;
      const pagesBefore = scalar(fixture.demoPath, 'SELECT sum(pages) FROM books WHERE genre_id = 2') as number;
      expect(matched).toBeGreaterThan(1);
      const out = await approvedRun('UPDATE books SET pages = pages + 1 WHERE genre_id = 2');
      expect(out).toMatchObject({ statement_kind: 'write', rows_affected: matched });
      expect(await read('SELECT sum(pages) FROM books WHERE genre_id = 2')).toEqual([[pagesBefore + matched]]);
    });

    it('DELETE … WHERE → statement_kind write, rows_affected 1; a later read no longer sees the row', async () => {
      const name = `Deleted ${unique()}`;
      await approvedRun(`INSERT INTO genres (name) VALUES ('${name}')`);
      const out = await approvedRun(`DELETE FROM genres WHERE name = '${name}'`);
      expect(out).toMatchObject({ statement_kind: 'write', rows_affected: 1 });
      expect(await read(`SELECT count(*) FROM genres WHERE name = '${name}'`)).toEqual([[0]]);
    });

    it('CREATE TABLE → statement_kind ddl, rows_affected 0; list_tables shows the table', async () => {
      const out = await approvedRun('CREATE TABLE consent_created (id INTEGER PRIMARY KEY, label TEXT)');
      expect(out).toMatchObject({ statement_kind: 'ddl', rows_affected: 0 });
      expect(await tableNames()).toContain('consent_created');
    });

    it('ALTER TABLE → statement_kind ddl, rows_affected 0; describe_table shows the new column', async () => {
      await approvedRun('CREATE TABLE consent_altered (id INTEGER PRIMARY KEY)');
      const out = await approvedRun('ALTER TABLE consent_altered ADD COLUMN note TEXT');
      expect(out).toMatchObject({ statement_kind: 'ddl', rows_affected: 0 });
      const described = expectToolSuccess(
        await callTool(app, 'describe_table', { connection_id: 'demo', table: 'consent_altered' }, { headers: readWrite.headers }),
      );
      expect((described.columns as { name: string }[]).map((c) => c.name)).toEqual(['id', 'note']);
    });

    it('INSERT … RETURNING id → rows_affected 1 and the returned row', async () => {
      const name = `Returning ${unique()}`;
      const out = await approvedRun(`INSERT INTO genres (name) VALUES ('${name}') RETURNING id`);
      const id = scalar(fixture.demoPath, 'SELECT id FROM genres WHERE name = ?', name);
      expect(typeof id).toBe('number');
      expect(out).toMatchObject({ statement_kind: 'write', rows_affected: 1, row_count: 1, rows: [[id]] });
      expect((out.columns as { name: string }[]).map((c) => c.name)).toEqual(['id']);
    });
  });

  describe('the repeated call, not accepted: `denied`', () => {
    it.each([
      ['action decline', { action: 'decline' }],
      ['action cancel', { action: 'cancel' }],
      ['action decline, even with approved true', { action: 'decline', content: { approved: true } }],
      ['action accept with approved false', { action: 'accept', content: { approved: false } }],
      ['action accept without content', { action: 'accept' }],
    ])('%s → tool error `denied: …`, nothing written', async (_label, response) => {
      const name = `Refused ${unique()}`;
      const args = { connection_id: 'demo', sql: `INSERT INTO genres (name) VALUES ('${name}')` };
      const requestState = await ask(args);
      expectToolError(await answer(args, requestState, { [CONSENT_KEY]: response }), 'denied');
      expect(genresNamed(name)).toBe(0);
    });
  });

  describe('the repeated call, rejected: -32602', () => {
    it.each([
      ['a different SQL text', (sql: string) => ({ connection_id: 'demo', sql: sql.replace("')", "!')") })],
      ['a different connection_id', (sql: string) => ({ connection_id: 'other', sql })],
      ['an added max_rows', (sql: string) => ({ connection_id: 'demo', sql, max_rows: 10 })],
    ])('%s → 400 -32602, nothing written anywhere', async (_label, change) => {
      const name = `Changed ${unique()}`;
      const sql = `INSERT INTO genres (name) VALUES ('${name}')`;
      const requestState = await ask({ connection_id: 'demo', sql });
      expectRpcError(await answer(change(sql), requestState), 400, -32602, 1);
      expect(scalar(fixture.demoPath, "SELECT count(*) FROM genres WHERE name LIKE 'Changed %'")).toBe(0);
      expect(scalar(fixture.otherPath, 'SELECT count(*) FROM genres')).toBe(0);
    });

    it('the SQL changed into a read (SELECT) → 400 -32602: a repeated call is checked whatever the new statement is', async () => {
      const name = `Now a read ${unique()}`;
      const requestState = await ask({ connection_id: 'demo', sql: `INSERT INTO genres (name) VALUES ('${name}')` });
      const res = await answer({ connection_id: 'demo', sql: 'SELECT count(*) FROM genres' }, requestState);
      expectRpcError(res, 400, -32602, 1);
      expect(genresNamed(name)).toBe(0);
    });

    it('a requestState with one character of its signature changed → 400 -32602; the genuine state still works', async () => {
      const name = `Tampered ${unique()}`;
      const args = { connection_id: 'demo', sql: `INSERT INTO genres (name) VALUES ('${name}')` };
      const requestState = await ask(args);
      expectRpcError(await answer(args, tamperSignature(requestState)), 400, -32602, 1);
      expect(genresNamed(name)).toBe(0);
      expect(expectToolSuccess(await answer(args, requestState))).toMatchObject({ rows_affected: 1 });
    });

    it('a consented requestState runs once: the same answer again → 400 -32602, and the row is written once', async () => {
      const name = `Replayed ${unique()}`;
      const args = { connection_id: 'demo', sql: `INSERT INTO genres (name) VALUES ('${name}')` };
      const requestState = await ask(args);
      expect(expectToolSuccess(await answer(args, requestState))).toMatchObject({ rows_affected: 1 });
      for (let i = 0; i < 3; i++) expectRpcError(await answer(args, requestState), 400, -32602, 1);
      expectRpcError(await answer(args, requestState, accept, secondReadWrite), 400, -32602, 1);
      expect(genresNamed(name)).toBe(1);
    });

    it('a declined requestState is spent too: accepting it afterwards → 400 -32602, nothing written', async () => {
      const name = `Declined then accepted ${unique()}`;
      const args = { connection_id: 'demo', sql: `INSERT INTO genres (name) VALUES ('${name}')` };
      const requestState = await ask(args);
      expectToolError(await answer(args, requestState, { [CONSENT_KEY]: { action: 'decline' } }), 'denied');
      expectRpcError(await answer(args, requestState), 400, -32602, 1);
      expect(genresNamed(name)).toBe(0);
    });

    it('a requestState that is not a JWS at all → 400 -32602', async () => {
      const args = { connection_id: 'demo', sql: `INSERT INTO genres (name) VALUES ('Garbage ${unique()}')` };
      expectRpcError(await answer(args, 'not-a-state'), 400, -32602, 1);
      expectRpcError(await answer(args, 42), 400, -32602, 1);
    });

    it('a requestState issued to another token → 400 -32602 (the same call under the other token)', async () => {
      const name = `Other token ${unique()}`;
      const args = { connection_id: 'demo', sql: `INSERT INTO genres (name) VALUES ('${name}')` };
      const requestState = await ask(args, readWrite);
      expectRpcError(await answer(args, requestState, accept, secondReadWrite), 400, -32602, 1);
      expect(genresNamed(name)).toBe(0);
    });

    it('a requestState issued for another method (prompts/get with identical params) → 400 -32602', async () => {
      const name = `Other method ${unique()}`;
      const args = { connection_id: 'demo', sql: `INSERT INTO genres (name) VALUES ('${name}')` };
      const prompt = expectModernSuccess(
        await mcp(app, 'prompts/get', { name: capture.name, arguments: args }, { headers: readWrite.headers, extraMeta: ELICITATION_META }),
      );
      const promptState = prompt.messages[0].content.text as string;
      expect(promptState.split('.')).toHaveLength(3);
      expectRpcError(await answer(args, promptState), 400, -32602, 1);
      expect(genresNamed(name)).toBe(0);
    });

    it('a requestState 299 s old still works', async () => {
      const name = `Late ${unique()}`;
      const args = { connection_id: 'demo', sql: `INSERT INTO genres (name) VALUES ('${name}')` };
      const requestState = await ask(args);
      clock.increment(299_000);
      expect(expectToolSuccess(await answer(args, requestState))).toMatchObject({ statement_kind: 'write', rows_affected: 1 });
      expect(genresNamed(name)).toBe(1);
    });

    it('a requestState older than 5 minutes (300.001 s) → 400 -32602, nothing written', async () => {
      const name = `Expired ${unique()}`;
      const args = { connection_id: 'demo', sql: `INSERT INTO genres (name) VALUES ('${name}')` };
      const requestState = await ask(args);
      clock.increment(300_001);
      expectRpcError(await answer(args, requestState), 400, -32602, 1);
      expect(genresNamed(name)).toBe(0);
    });

    it.each([
      ['inputResponses omitted', undefined],
      ['inputResponses {}', {}],
      ['only another key answered', { some_other_key: ACCEPTED }],
      ['approve_statement not an object', { [CONSENT_KEY]: 'accept' }],
    ])('a valid requestState with %s → 400 -32602, nothing written', async (_label, inputResponses) => {
      const name = `Unanswered ${unique()}`;
      const args = { connection_id: 'demo', sql: `INSERT INTO genres (name) VALUES ('${name}')` };
      const requestState = await ask(args);
      const roundTrip = inputResponses === undefined ? { requestState } : { requestState, inputResponses };
      const res = await repeatToolCall(app, 'execute_query', args, roundTrip, { headers: readWrite.headers, extraMeta: ELICITATION_META });
      expectRpcError(res, 400, -32602, 1);
      expect(genresNamed(name)).toBe(0);
    });

    it('inputResponses without any requestState → 400 -32602, nothing written', async () => {
      const name = `Stateless ${unique()}`;
      const args = { connection_id: 'demo', sql: `INSERT INTO genres (name) VALUES ('${name}')` };
      const res = await repeatToolCall(app, 'execute_query', args, { inputResponses: accept }, { headers: readWrite.headers, extraMeta: ELICITATION_META });
      expectRpcError(res, 400, -32602, 1);
      expect(genresNamed(name)).toBe(0);
    });
  });

  describe('destructive statements (DROP, TRUNCATE, DELETE without WHERE)', () => {
    const keepMeRows = () => scalar(fixture.demoPath, 'SELECT count(*) FROM keep_me');

    it.each(['DROP TABLE keep_me', 'DELETE FROM keep_me'])(
      'execute_query `%s` with a readWrite token → tool error `unsupported: …confirm_destructive_operation…`',
      async (sql) => {
        const res = await callTool(app, 'execute_query', { connection_id: 'demo', sql }, { headers: readWrite.headers, extraMeta: ELICITATION_META });
        const text = expectToolError(res, 'unsupported');
        expect(text).toContain('confirm_destructive_operation');
        expect(keepMeRows()).toBe(2);
      },
    );

    it.each(['DROP TABLE keep_me', 'DELETE FROM keep_me'])(
      'execute_query `%s` with a readOnly token → 403 -33007 first (the scope check comes before the redirect)',
      async (sql) => {
        const res = await callTool(app, 'execute_query', { connection_id: 'demo', sql }, { headers: readOnly.headers, extraMeta: ELICITATION_META });
        const error = expectRpcError(res, 403, -33007, 1);
        expect(error.data.requiredScopes).toContain('tools:write');
        expect(keepMeRows()).toBe(2);
      },
    );

    it('confirm_destructive_operation with a readWrite token → 403 -33007, requiredScopes include admin', async () => {
      const res = await callTool(
        app,
        'confirm_destructive_operation',
        { connection_id: 'demo', sql: 'DROP TABLE keep_me' },
        { headers: readWrite.headers, extraMeta: ELICITATION_META },
      );
      const error = expectRpcError(res, 403, -33007, 1);
      expect(error.data.requiredScopes).toContain('admin');
      expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
      expect(keepMeRows()).toBe(2);
    });

    it('fullAccess + elicitation: DROP TABLE asks (input_required), then the accepted call drops it (rows_affected 0)', async () => {
      const sql = 'DROP TABLE drop_me';
      const args = { connection_id: 'demo', sql };
      const requestState = await ask(args, fullAccess, 'confirm_destructive_operation');
      expect(await tableNames()).toContain('drop_me');
      const out = expectToolSuccess(await answer(args, requestState, accept, fullAccess, 'confirm_destructive_operation'));
      expect(out).toMatchObject({ statement_kind: 'destructive', rows_affected: 0, rows: [] });
      expect(await tableNames()).not.toContain('drop_me');
    });

    it('fullAccess + elicitation: DELETE without WHERE asks, then the accepted call empties the table', async () => {
      const args = { connection_id: 'demo', sql: 'DELETE FROM empty_me' };
      const requestState = await ask(args, fullAccess, 'confirm_destructive_operation');
      expect(scalar(fixture.demoPath, 'SELECT count(*) FROM empty_me')).toBe(3);
      const out = expectToolSuccess(await answer(args, requestState, accept, fullAccess, 'confirm_destructive_operation'));
      expect(out).toMatchObject({ statement_kind: 'destructive', rows_affected: 3 });
      expect(await read('SELECT count(*) FROM empty_me')).toEqual([[0]]);
    });

    it('declining a destructive statement → `denied: …`, the table stays', async () => {
      const args = { connection_id: 'demo', sql: 'DROP TABLE keep_me' };
      const requestState = await ask(args, fullAccess, 'confirm_destructive_operation');
      const res = await answer(args, requestState, { [CONSENT_KEY]: { action: 'decline' } }, fullAccess, 'confirm_destructive_operation');
      expectToolError(res, 'denied');
      expect(await tableNames()).toContain('keep_me');
    });

    it.each(['UPDATE genres SET name = name WHERE id = 1', 'SELECT 1', 'CREATE TABLE not_destructive (id INTEGER)'])(
      'confirm_destructive_operation with a non-destructive statement (`%s`) → tool error `invalid_argument: …`',
      async (sql) => {
        const res = await callTool(app, 'confirm_destructive_operation', { connection_id: 'demo', sql }, { headers: fullAccess.headers, extraMeta: ELICITATION_META });
        expectToolError(res, 'invalid_argument');
      },
    );
  });

  describe('a statement the classifier calls a read but SQLite calls a write', () => {
    const replaceSql = (name: string) => `WITH x AS (SELECT 1) REPLACE INTO genres (id, name) VALUES (1, '${name}')`;

    it('describe_table genres: the target has the columns id and name (id the primary key)', async () => {
      const out = expectToolSuccess(await callTool(app, 'describe_table', { connection_id: 'demo', table: 'genres' }, { headers: readWrite.headers }));
      expect((out.columns as { name: string }[]).map((c) => c.name)).toEqual(['id', 'name']);
      expect(out.primary_key).toEqual(['id']);
    });

    it('WITH … REPLACE INTO from an elicitation client → input_required for the exact statement; nothing written', async () => {
      const name = `Replaced ${unique()}`;
      const sql = replaceSql(name);
      const before = scalar(fixture.demoPath, 'SELECT name FROM genres WHERE id = 1');
      const res = await callTool(app, 'execute_query', { connection_id: 'demo', sql }, { headers: readWrite.headers, extraMeta: ELICITATION_META });
      expectInputRequired(res, sql);
      expect(scalar(fixture.demoPath, 'SELECT name FROM genres WHERE id = 1')).toBe(before);
    });

    it('…and the accepted repeated call runs it as a write', async () => {
      const name = `Replaced ${unique()}`;
      const args = { connection_id: 'demo', sql: replaceSql(name) };
      const first = await callTool(app, 'execute_query', args, { headers: readWrite.headers, extraMeta: ELICITATION_META });
      const requestState = expectInputRequired(first, args.sql);
      const out = expectToolSuccess(await answer(args, requestState));
      expect(out).toMatchObject({ statement_kind: 'write', rows_affected: 1 });
      expect(await read('SELECT name FROM genres WHERE id = 1')).toEqual([[name]]);
    });

    it('…and a readOnly token is refused it with 403 -33007 (tools:write)', async () => {
      const sql = replaceSql(`Read only ${unique()}`);
      const res = await callTool(app, 'execute_query', { connection_id: 'demo', sql }, { headers: readOnly.headers, extraMeta: ELICITATION_META });
      const error = expectRpcError(res, 403, -33007, 1);
      expect(error.data.requiredScopes).toContain('tools:write');
    });
  });

  describe('activity log', () => {
    const traced = () => `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
    const rowsFor = (traceparent: string) =>
      app.activity.list({ category: 'tool', limit: 10_000 }).filter((row) => row.traceparent === traceparent);

    it('one `tool` row per call (asked, accepted, declined) with the statement digest, never the SQL text', async () => {
      const marker = `Logged ${unique()}`;
      const accepted = { connection_id: 'demo', sql: `INSERT INTO genres (name) VALUES ('${marker} accepted')` };
      const declined = { connection_id: 'demo', sql: `INSERT INTO genres (name) VALUES ('${marker} declined')` };
      const calls = { asked: traced(), accepted: traced(), declinedAsk: traced(), declined: traced() };

      const meta = (traceparent: string) => ({ headers: readWrite.headers, extraMeta: { ...ELICITATION_META, traceparent } });
      const state = expectInputRequired(await callTool(app, 'execute_query', accepted, meta(calls.asked)), accepted.sql);
      expectToolSuccess(await repeatToolCall(app, 'execute_query', accepted, { requestState: state, inputResponses: accept }, meta(calls.accepted)));
      const declinedState = expectInputRequired(await callTool(app, 'execute_query', declined, meta(calls.declinedAsk)), declined.sql);
      expectToolError(
        await repeatToolCall(
          app,
          'execute_query',
          declined,
          { requestState: declinedState, inputResponses: { [CONSENT_KEY]: { action: 'decline' } } },
          meta(calls.declined),
        ),
        'denied',
      );

      const expected = (sql: string, outcome: string) => ({
        category: 'tool',
        action: 'execute_query',
        outcome,
        token_id: readWrite.id,
        token_name: readWrite.name,
        connection_id: 'demo',
        statement_sha256: sha256(sql),
      });
      const only = (traceparent: string) => {
        const rows = rowsFor(traceparent);
        expect(rows).toHaveLength(1);
        return rows[0];
      };
      expect(only(calls.asked)).toMatchObject(expected(accepted.sql, 'success'));
      expect(only(calls.accepted)).toMatchObject(expected(accepted.sql, 'success'));
      expect(only(calls.declinedAsk)).toMatchObject(expected(declined.sql, 'success'));
      expect(only(calls.declined)).toMatchObject(expected(declined.sql, 'denied'));
      const everything = JSON.stringify(app.activity.list({ limit: 100_000 }));
      expect(everything).not.toContain(marker);
      expect(everything).not.toContain('INSERT INTO genres');
    });
  });
});

describe('consent through a confirmation dialog (a client without elicitation)', () => {
  const clock = simulatedClockAtNow();
  let app: TestApp;
  let demoPath: string;
  let readWrite: Minted;
  let otherReadWrite: Minted;
  let fullAccess: Minted;

  beforeAll(async () => {
    app = await startTestApp({ auth: true, clock });
    demoPath = join(app.dataDir, 'demo.sqlite');
    const demo = new Database(demoPath);
    demo.exec("CREATE TABLE dialog_drop_me (id INTEGER PRIMARY KEY, label TEXT); INSERT INTO dialog_drop_me (label) VALUES ('a');");
    demo.close();
    readWrite = mint(app, clock, 'readWrite');
    otherReadWrite = mint(app, clock, 'readWrite', 'another readWrite token');
    fullAccess = mint(app, clock, 'fullAccess');
  });
  afterAll(() => app?.dispose());

  const genresNamed = (name: string) => scalar(demoPath, 'SELECT count(*) FROM genres WHERE name = ?', name);

  /** Waits for the dialog of `statement` to show in the console's list. */
  const dialogFor = (statement: string) =>
    eventually(() => app.dialogs.list().find((d) => d.statement === statement), `the dialog of ${statement}`);

  /** The dialog is gone, no request or dialog actor is left, and nothing else waits. */
  async function expectSettled(dialogId: string) {
    await eventually(() => (app.dialogs.list().some((d) => d.id === dialogId) ? undefined : true), 'the dialog to go');
    expect(app.dialogs.answer(dialogId, 'approve')).toBe(false);
    await eventually(() => (app.liveActors() === 0 ? true : undefined), 'live actors back to 0');
    expect(app.dialogs.list()).toEqual([]);
  }

  it('the call waits on a dialog showing the statement, kind, connection, tool and client; approve → it runs', async () => {
    const name = `Dialog approved ${unique()}`;
    const sql = `INSERT INTO genres (name) VALUES ('${name}')`;
    const pending = callTool(app, 'execute_query', { connection_id: 'demo', sql }, { headers: readWrite.headers, extraMeta: CLIENT_INFO });
    const dialog = await dialogFor(sql);
    expect(dialog).toMatchObject({
      id: expect.any(String),
      kind: 'statement',
      statement: sql,
      statementKind: 'write',
      connectionId: 'demo',
      connectionName: 'Demo bookshop',
      tool: 'execute_query',
      clientName: 'consent-suite',
    });
    await sleep(50);
    expect(genresNamed(name)).toBe(0);
    expect(app.dialogs.answer(dialog.id, 'approve')).toBe(true);
    const out = expectToolSuccess(await pending);
    expect(out).toMatchObject({ statement_kind: 'write', rows_affected: 1 });
    expect(genresNamed(name)).toBe(1);
    await expectSettled(dialog.id);
  });

  it('deny → tool error `denied: …`, nothing written; without clientInfo the dialog names the token', async () => {
    const name = `Dialog denied ${unique()}`;
    const sql = `INSERT INTO genres (name) VALUES ('${name}')`;
    const pending = callTool(app, 'execute_query', { connection_id: 'demo', sql }, { headers: readWrite.headers });
    const dialog = await dialogFor(sql);
    expect(dialog.clientName).toBe(readWrite.name);
    expect(app.dialogs.answer(dialog.id, 'deny')).toBe(true);
    expectToolError(await pending, 'denied');
    expect(genresNamed(name)).toBe(0);
    await expectSettled(dialog.id);
  });

  it('notifications/cancelled from the same token → -33002 (HTTP 200), the dialog is abandoned; another token cannot cancel it', async () => {
    const name = `Dialog cancelled ${unique()}`;
    const sql = `INSERT INTO genres (name) VALUES ('${name}')`;
    const pending = callTool(app, 'execute_query', { connection_id: 'demo', sql }, { id: 'cancel-me', headers: readWrite.headers });
    const dialog = await dialogFor(sql);

    expect((await sendCancelled(app, 'cancel-me', otherReadWrite.headers)).status).toBe(202);
    await sleep(100);
    expect(app.dialogs.list().map((d) => d.id)).toContain(dialog.id);

    expect((await sendCancelled(app, 'cancel-me', readWrite.headers)).status).toBe(202);
    expectRpcError(await pending, 200, -33002, 'cancel-me');
    await expectSettled(dialog.id);
    expect(genresNamed(name)).toBe(0);
  });

  it('revoking the token while its dialog waits → -33002, the dialog is abandoned', async () => {
    const doomed = mint(app, clock, 'readWrite', 'revoked while waiting');
    const name = `Dialog revoked ${unique()}`;
    const sql = `INSERT INTO genres (name) VALUES ('${name}')`;
    const pending = callTool(app, 'execute_query', { connection_id: 'demo', sql }, { id: 'revoke-me', headers: doomed.headers });
    const dialog = await dialogFor(sql);
    app.tokens.revoke(doomed.id, clock.now());
    expectRpcError(await pending, 200, -33002, 'revoke-me');
    await expectSettled(dialog.id);
    expect(genresNamed(name)).toBe(0);
  });

  it('the 330 s handler deadline while the dialog waits → -33003, the dialog is abandoned', async () => {
    const name = `Dialog timed out ${unique()}`;
    const sql = `INSERT INTO genres (name) VALUES ('${name}')`;
    const pending = callTool(app, 'execute_query', { connection_id: 'demo', sql }, { id: 'too-slow', headers: readWrite.headers });
    const dialog = await dialogFor(sql);
    clock.increment(329_000);
    await sleep(50);
    expect(app.dialogs.list().map((d) => d.id)).toContain(dialog.id);
    clock.increment(1_000);
    expectRpcError(await pending, 200, -33003, 'too-slow');
    await expectSettled(dialog.id);
    expect(genresNamed(name)).toBe(0);
  });

  it('confirm_destructive_operation (fullAccess) asks in a dialog too: kind destructive; approve → the table is dropped', async () => {
    const sql = 'DROP TABLE dialog_drop_me';
    const pending = callTool(app, 'confirm_destructive_operation', { connection_id: 'demo', sql }, { headers: fullAccess.headers });
    const dialog = await dialogFor(sql);
    expect(dialog).toMatchObject({ statementKind: 'destructive', tool: 'confirm_destructive_operation', connectionId: 'demo' });
    expect(scalar(demoPath, "SELECT count(*) FROM sqlite_master WHERE name = 'dialog_drop_me'")).toBe(1);
    app.dialogs.answer(dialog.id, 'approve');
    expect(expectToolSuccess(await pending)).toMatchObject({ statement_kind: 'destructive', rows_affected: 0 });
    expect(scalar(demoPath, "SELECT count(*) FROM sqlite_master WHERE name = 'dialog_drop_me'")).toBe(0);
    await expectSettled(dialog.id);
  });

  it('a read the engine calls a write (WITH … REPLACE INTO) asks in a dialog as a write; approve → it runs', async () => {
    const name = `Dialog replaced ${unique()}`;
    const sql = `WITH x AS (SELECT 1) REPLACE INTO genres (id, name) VALUES (2, '${name}')`;
    const pending = callTool(app, 'execute_query', { connection_id: 'demo', sql }, { headers: readWrite.headers });
    const dialog = await dialogFor(sql);
    expect(dialog).toMatchObject({ statementKind: 'write', tool: 'execute_query' });
    app.dialogs.answer(dialog.id, 'approve');
    expect(expectToolSuccess(await pending)).toMatchObject({ statement_kind: 'write', rows_affected: 1 });
    expect(scalar(demoPath, 'SELECT name FROM genres WHERE id = 2')).toBe(name);
    await expectSettled(dialog.id);
  });

  it('the activity log: a dialog denial is a `tool`/`denied` row with the digest, an approval `success`, never the text', async () => {
    const marker = `Dialog logged ${unique()}`;
    const denied = `INSERT INTO genres (name) VALUES ('${marker} denied')`;
    const approved = `INSERT INTO genres (name) VALUES ('${marker} approved')`;
    const since = new Date(clock.now()).toISOString();
    for (const [sql, choice] of [
      [denied, 'deny'],
      [approved, 'approve'],
    ] as const) {
      const pending = callTool(app, 'execute_query', { connection_id: 'demo', sql }, { headers: readWrite.headers });
      app.dialogs.answer((await dialogFor(sql)).id, choice);
      await pending;
    }
    const rows = app.activity.list({ category: 'tool', since, limit: 10_000 });
    expect(rows.find((r) => r.statement_sha256 === sha256(denied))).toMatchObject({
      action: 'execute_query',
      outcome: 'denied',
      token_id: readWrite.id,
      connection_id: 'demo',
    });
    expect(rows.find((r) => r.statement_sha256 === sha256(approved))).toMatchObject({ outcome: 'success', token_id: readWrite.id });
    expect(JSON.stringify(app.activity.list({ limit: 100_000 }))).not.toContain(marker);
  });
});
