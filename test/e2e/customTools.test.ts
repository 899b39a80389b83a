import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cursorProperty } from '../../src/capabilities/readOn.js';
import { resultSetSchema } from '../../src/capabilities/resultSet.js';
import { CUSTOM_TOOLS } from '../../src/core/contract.js';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import type { Engine } from '../../src/db/database.js';
import { ACCEPTED, CONSENT_KEY, ELICITATION_META, expectInputRequired, repeatToolCall } from '../helpers/consentRoundTrip.js';
import { availableEngines, createFixture, type EngineFixture } from '../helpers/engines.js';
import { listen } from '../helpers/eventStream.js';
import { eventually, untilPasses } from '../helpers/polling.js';
import { SteppingClock } from '../helpers/steppingClock.js';
import { expectModernSuccess, expectRpcError, expectToolError, expectToolSuccess } from '../helpers/rpcAssertions.js';
import { bearer, callTool, mcp, mintToken, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * Custom tools (issue 32) on each engine: definitions read from tools.json (each refused one with its
 * file, line and reason, the others served), called like any tool (bound arguments, consent for a
 * write, the activity log naming the tool), re-read with `tools/list` changes announced, and a token
 * limited to one of them that reaches nothing else.
 */

const engines = await availableEngines();

const GOOD = [
  {
    name: 'find_author',
    description: 'The author with this exact name.',
    connection: 'db',
    statement: 'SELECT id, name FROM authors WHERE name = :name ORDER BY id',
    kind: 'read',
    parameters: [{ name: 'name', type: 'string', description: 'The author’s full name.' }],
  },
  {
    name: 'rename_author',
    description: 'Gives an author another name.',
    connection: 'db',
    statement: 'UPDATE authors SET name = :name WHERE id = :id',
    kind: 'write',
    parameters: [
      { name: 'id', type: 'integer', minimum: 1 },
      { name: 'name', type: 'string', pattern: '^[A-Z]' },
    ],
  },
  {
    name: 'books_from',
    description: 'Books from this id on, two at a time.',
    connection: 'db',
    statement: 'SELECT id FROM books WHERE id >= :min_id ORDER BY id',
    kind: 'read',
    max_rows: 2,
    parameters: [{ name: 'min_id', type: 'integer' }],
  },
];

const BAD = [
  { name: 'sneaky_write', description: 'Says it reads.', connection: 'db', statement: 'DELETE FROM books WHERE id = :id', kind: 'read', parameters: [{ name: 'id', type: 'integer' }] },
  { name: 'lost_param', description: 'A placeholder without a parameter.', connection: 'db', statement: 'SELECT * FROM books WHERE id = :book', kind: 'read' },
  { name: 'execute_query', description: 'Takes a built-in name.', connection: 'db', statement: 'SELECT 1', kind: 'read' },
  { name: 'nowhere', description: 'An unknown connection.', connection: 'nope', statement: 'SELECT 1', kind: 'read' },
  { name: 'cursor_param', description: 'Takes the name cursor.', connection: 'db', statement: 'SELECT id FROM books WHERE id = :cursor', kind: 'read', parameters: [{ name: 'cursor', type: 'integer' }] },
  // Only PostgreSQL's own parser runs without a server: elsewhere the engine finds this when it is called.
  { name: 'cut_short', description: 'Ends early.', connection: 'db', statement: 'SELECT id FROM authors WHERE id = :id AND', kind: 'read', parameters: [{ name: 'id', type: 'integer' }] },
];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const fileText = (tools: unknown[]) => `${JSON.stringify({ tools }, null, 2)}\n`;

/** The line the entry whose name is `name` starts on (its `{`, the line before its name). */
const lineOf = (text: string, name: string) => text.split('\n').findIndex((line) => line.includes(`"name": "${name}"`));

describe.each(engines)('custom tools on %s', (engine: Engine) => {
  let fixture: EngineFixture;
  let app: TestApp;
  let dataDir: string;
  let path: string;
  let text: string;
  let full: Record<string, string>;
  const notices: string[] = [];

  beforeAll(async () => {
    fixture = await createFixture(engine);
    // SQLite holds a read (next_cursor) only in WAL mode, as the demo database is.
    if (engine === 'sqlite') await fixture.query('PRAGMA journal_mode = WAL');
    dataDir = mkdtempSync(join(tmpdir(), `sluice-tools-${engine}-`));
    path = join(dataDir, 'tools.json');
    writeConfig(dataDir, { connections: [fixture.connection] });
    text = fileText([GOOD[0], ...BAD, GOOD[1], GOOD[2]]);
    writeFileSync(path, text);
    app = await startTestApp({ dataDir, auth: true, notice: (line) => notices.push(line) });
    full = mintToken(app, `${engine} full`).headers;
  });
  afterAll(async () => {
    await app?.dispose();
    await fixture?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const mark = (n: number) => (engine === 'postgres' || engine === 'duckdb' ? `$${n}` : '?');

  it('a read cut by its max_rows reads on from its next_cursor, called again with the same arguments', async () => {
    const ids = (answer: Record<string, unknown>) => (answer.rows as unknown[][]).map((row) => Number(row[0]));
    const first = expectToolSuccess(await callTool(app, 'books_from', { min_id: 20 }, { headers: full }));
    expect(first).toMatchObject({ row_count: 2, is_truncated: true, next_cursor: expect.any(String) });
    const seen = ids(first);
    let cursor: string | undefined = first.next_cursor;
    while (cursor !== undefined) {
      const page = expectToolSuccess(await callTool(app, 'books_from', { min_id: 20, cursor }, { headers: full }));
      seen.push(...ids(page));
      cursor = page.next_cursor;
    }
    expect(seen).toEqual([20, 21, 22, 23, 24, 25]);
    const again = expectToolSuccess(await callTool(app, 'books_from', { min_id: 1 }, { headers: full }));
    const other = expectToolError(await callTool(app, 'books_from', { min_id: 2, cursor: again.next_cursor }, { headers: full }), 'invalid_argument');
    expect(other).toMatch(/reads on another statement/);
  });

  it('refuses each bad definition with its file, line and reason, once, and serves the others', async () => {
    expect(app.customTools.refusals()).toEqual([
      { file: path, line: lineOf(text, 'sneaky_write'), reason: expect.stringMatching(/^kind is read, but the statement is classified (write|destructive): /) },
      { file: path, line: lineOf(text, 'lost_param'), reason: "the statement's placeholder :book has no parameter" },
      { file: path, line: lineOf(text, 'execute_query'), reason: 'the name execute_query is taken (a built-in tool, or a tool defined earlier in the file)' },
      { file: path, line: lineOf(text, 'nowhere'), reason: 'no saved connection has the id "nope"' },
      { file: path, line: lineOf(text, 'cursor_param'), reason: 'cursor is not a parameter name: it reads on from a cut answer' },
      ...(engine === 'postgres' ? [{ file: path, line: lineOf(text, 'cut_short'), reason: 'statement: the statement is not valid: syntax error at end of input' }] : []),
    ]);
    expect(notices).toEqual(app.customTools.refusals().map((r) => `custom tool refused: ${r.file}:${r.line}: ${r.reason}`));
    await app.customTools.reload();
    expect(notices).toHaveLength(engine === 'postgres' ? 6 : 5);
    const listed = expectModernSuccess(await mcp(app, 'tools/list', {}, { headers: full })).tools as Record<string, unknown>[];
    expect(listed.filter((tool) => ['find_author', 'rename_author'].includes(tool.name as string))).toEqual([
      {
        name: 'find_author',
        title: 'find_author',
        description: 'The author with this exact name.',
        inputSchema: {
          type: 'object',
          properties: { name: { type: 'string', description: 'The author’s full name.' }, cursor: { type: 'string', description: cursorProperty.description } },
          required: ['name'],
          additionalProperties: false,
        },
        outputSchema: resultSetSchema,
        annotations: { readOnlyHint: true },
      },
      {
        name: 'rename_author',
        title: 'rename_author',
        description: 'Gives an author another name.',
        inputSchema: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string', pattern: '^[A-Z]' } }, required: ['id', 'name'], additionalProperties: false },
        outputSchema: resultSetSchema,
        annotations: { readOnlyHint: false, destructiveHint: false },
      },
    ]);
  });

  it('binds the arguments: a quote in one stays a value, and the activity log names the tool', async () => {
    const found = expectToolSuccess(await callTool(app, 'find_author', { name: 'Italo Calvino' }, { headers: full }));
    expect(found).toMatchObject({ rows: [[2, 'Italo Calvino']], row_count: 1, statement_kind: 'read' });
    const injected = expectToolSuccess(await callTool(app, 'find_author', { name: "x' OR '1'='1" }, { headers: full }));
    expect(injected).toMatchObject({ rows: [], row_count: 0 });
    const [row] = app.activity.list({ category: 'tool' });
    // The digest of the tool's own statement, as written in tools.json (never its text).
    expect(row).toMatchObject({ action: 'find_author', outcome: 'success', connection_id: 'db', rows: 0, statement_sha256: sha256(GOOD[0]!.statement) });
    const refused = expectRpcError(await callTool(app, 'find_author', { name: 'x', extra: 1 }, { headers: full }), 400, -32602, 1);
    expect(refused.message).toBe('Invalid arguments: arguments.extra is not a known argument');
  });

  it('asks consent for a write with the statement as the engine runs it, and writes once accepted', async () => {
    const args = { id: 3, name: 'Octavia Butler' };
    const asked = await callTool(app, 'rename_author', args, { headers: full, extraMeta: ELICITATION_META });
    const state = expectInputRequired(asked, `UPDATE authors SET name = ${mark(1)} WHERE id = ${mark(2)}`);
    expect(await fixture.query('SELECT name FROM authors WHERE id = 3')).toEqual([['Octavia E. Butler']]);
    const done = await repeatToolCall(app, 'rename_author', args, { requestState: state, inputResponses: { [CONSENT_KEY]: ACCEPTED } }, { headers: full, extraMeta: ELICITATION_META });
    expect(expectToolSuccess(done)).toMatchObject({ rows_affected: 1, statement_kind: 'write' });
    expect(await fixture.query('SELECT name FROM authors WHERE id = 3')).toEqual([['Octavia Butler']]);
    const pattern = expectRpcError(await callTool(app, 'rename_author', { id: 3, name: 'lower' }, { headers: full }), 400, -32602, 1);
    expect(pattern.message).toBe('Invalid arguments: arguments.name must match the pattern ^[A-Z]');
  });

  it('limits a token to one custom tool: it sees and calls only that, and every other request is -33007', async () => {
    const { record, plaintext } = app.tokens.mint({ name: 'one tool', level: 'readWrite', connections: 'all', tools: ['find_author'], expiresInDays: null, now: Date.now() });
    expect(record.tools).toEqual(['find_author']);
    const headers = bearer(plaintext);
    const listed = expectModernSuccess(await mcp(app, 'tools/list', {}, { headers }));
    expect(listed.tools.map((tool: { name: string }) => tool.name)).toEqual(['find_author']);
    expect(expectToolSuccess(await callTool(app, 'find_author', { name: 'Italo Calvino' }, { headers })).row_count).toBe(1);
    for (const name of ['execute_query', 'rename_author', 'list_tables', 'no_such_tool']) {
      const error = expectRpcError(await callTool(app, name, { connection_id: 'db' }, { headers }), 403, -33007, 1);
      expect({ name, data: error.data }).toEqual({ name, data: { grantedTools: ['find_author'] } });
    }
    const others: [string, Record<string, unknown>][] = [
      ['resources/list', {}],
      ['resources/templates/list', {}],
      ['resources/read', { uri: 'sluice://connections' }],
      ['prompts/list', {}],
      ['prompts/get', { name: 'explain_schema', arguments: { connection_id: 'db' } }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'explain_schema' }, argument: { name: 'connection_id', value: '' } }],
    ];
    for (const [method, params] of others) {
      const error = expectRpcError(await mcp(app, method, params, { headers }), 403, -33007, 1);
      expect({ method, data: error.data }).toEqual({ method, data: { requiredScopes: ['resources:read'], grantedTools: ['find_author'] } });
    }
    // Its listen stream hears of the tool list only: no resource list or schema it could not read.
    const stream = await listen(app, 'narrow', { resourcesListChanged: true, resourceSubscriptions: ['sluice://connections/db/schema'], toolsListChanged: true }, headers);
    expect((await stream.next()).params.notifications).toEqual({ toolsListChanged: true });
    await stream.cancel();
  });

  it('re-reads the file and tells subscriptions/listen listeners the tool list changed', async () => {
    const stream = await listen(app, 'tools', { toolsListChanged: true }, full);
    expect((await stream.next()).params.notifications).toEqual({ toolsListChanged: true });
    const count = { ...GOOD[0], name: 'count_books', description: 'Books of one author.', statement: 'SELECT count(*) AS n FROM books WHERE author_id = :author', parameters: [{ name: 'author', type: 'integer' }] };
    const firstBooks = { ...count, name: 'first_books', description: 'An author’s first books.', statement: 'SELECT id FROM books WHERE author_id = :author ORDER BY id', max_rows: 2 };
    writeFileSync(path, fileText([...GOOD, count, firstBooks]));
    await app.customTools.reload();
    expect(await stream.next()).toMatchObject({ method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'tools' } } });
    expect(app.customTools.refusals()).toEqual([]);
    const counted = expectToolSuccess(await callTool(app, 'count_books', { author: 1 }, { headers: full }));
    expect(Number(counted.rows[0][0])).toBe(9);
    const first = expectToolSuccess(await callTool(app, 'first_books', { author: 1 }, { headers: full }));
    expect(first).toMatchObject({ rows: [[1], [4]], row_count: 2, is_truncated: true, truncated_reason: 'max_rows' });
    await stream.cancel();
  });
});

describe('the tools file as a whole', () => {
  it(`is refused whole, on line 1, when over ${CUSTOM_TOOLS.maxFileBytes / 1024} KB, and with its line when it is not JSON`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-tools-file-'));
    const path = join(dataDir, 'tools.json');
    writeFileSync(path, '{\n  "tools": [\n    { "name": "x", }\n  ]\n}\n');
    const app = await startTestApp({ dataDir, notice: () => undefined });
    try {
      expect(app.customTools.refusals()).toEqual([{ file: path, line: 3, reason: expect.stringMatching(/^not valid JSON: /) }]);
      writeFileSync(path, `{"tools": [], "pad": "${'x'.repeat(CUSTOM_TOOLS.maxFileBytes)}"}`);
      await app.customTools.reload();
      expect(app.customTools.refusals()).toEqual([{ file: path, line: 1, reason: `the file is over ${CUSTOM_TOOLS.maxFileBytes / 1024} KB` }]);
    } finally {
      await app.dispose();
    }
  });
});

describe('the tools file, edited while Sluice runs', () => {
  it(`is read again once the edit has settled for ${CUSTOM_TOOLS.reloadSettleMs} ms`, async () => {
    const clock = new SteppingClock();
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-tools-watch-'));
    const app = await startTestApp({ dataDir, clock, notice: () => undefined });
    const names = async () => expectModernSuccess(await mcp(app, 'tools/list')).tools.map((tool: { name: string }) => tool.name) as string[];
    try {
      const timers = clock.pendingTimers();
      writeFileSync(join(dataDir, 'tools.json'), fileText([{ name: 'demo_one', description: 'One.', connection: 'demo', statement: 'SELECT 1 AS one', kind: 'read' }]));
      await eventually(() => (clock.pendingTimers() > timers ? true : undefined), 'the settle timer');
      clock.advance(CUSTOM_TOOLS.reloadSettleMs - 1);
      expect(await names()).not.toContain('demo_one');
      clock.advance(1);
      await untilPasses(async () => expect(await names()).toContain('demo_one'));
    } finally {
      await app.dispose();
    }
  });
});
