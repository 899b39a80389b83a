import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EXPORTS } from '../../src/core/contract.js';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import { ACCEPTED, CONSENT_KEY, ELICITATION_META, expectInputRequired, repeatToolCall } from '../helpers/consentRoundTrip.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, createFixture, type EngineFixture } from '../helpers/engines.js';
import { expectRpcError, expectToolError, expectToolSuccess } from '../helpers/rpcAssertions.js';
import { eventually } from '../helpers/polling.js';
import { callTool, mintToken, type RawResponse, sendCancelled, sseFrames, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * export_data on each engine (issue 19): the consent round trip shows the file, the format and the
 * statement; once accepted the file holds exactly the rows, in CSV, JSON Lines or Parquet, mode 0600;
 * refusals are exact tool errors; a declined export writes nothing, not even a temp file.
 */

const engines = await availableEngines();

/** The three authors of the fixture, and a fourth whose name needs CSV quoting and whose birth year is null. */
const AUTHORS = 'SELECT id, name, born FROM authors ORDER BY id';
const TRICKY_NAME = 'Le Guin, "U."\nK.';

/** The numbers 1 to `rows`, made by the engine itself. */
const numbers = (engine: string, rows: number) =>
  engine === 'postgres'
    ? `SELECT g AS n FROM generate_series(1, ${rows}) AS g`
    : engine === 'mysql'
      ? `SELECT seq AS n FROM seq_1_to_${rows}`
      : engine === 'duckdb'
        ? `SELECT range AS n FROM range(1, ${rows + 1})`
        : `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${rows}) SELECT n FROM s`;

/** 200,000 numbers: the first page at once, every row after it a millisecond or more (long enough to cancel). */
const slowAfterFirstPage = (engine: string) =>
  `SELECT n FROM (${numbers(engine, 200_000)}) AS t WHERE n <= ${EXPORTS.pageRows} OR ${
    engine === 'postgres'
      ? "pg_sleep(0.001)::text = ''"
      : engine === 'mysql'
        ? 'SLEEP(0.001) = 0'
        : '(WITH RECURSIVE m(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM m WHERE j < 2000 + n * 0) SELECT count(*) FROM m) > 0'
  }`;

describe.each(engines)('export_data on %s', (engine) => {
  skipListed('exportData', engine);
  let fixture: EngineFixture;
  let app: TestApp;
  let dataDir: string;
  let dir: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    fixture = await createFixture(engine);
    await fixture.query(`INSERT INTO authors (id, name) VALUES (4, ${engine === 'postgres' || engine === 'duckdb' ? '$1' : '?'})`, [TRICKY_NAME]);
    dataDir = mkdtempSync(join(tmpdir(), `sluice-export-${engine}-`));
    writeConfig(dataDir, { connections: [fixture.connection] });
    app = await startTestApp({ dataDir, auth: true });
    headers = mintToken(app, `${engine} export`).headers;
  });
  afterAll(async () => {
    await app?.dispose();
    await fixture?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-export-out-'));
    return () => rmSync(dir, { recursive: true, force: true });
  });

  const ask = (args: Record<string, unknown>) => callTool(app, 'export_data', { connection_id: 'db', ...args }, { headers, extraMeta: ELICITATION_META });
  const answer = (args: Record<string, unknown>, state: string, response: unknown) =>
    repeatToolCall(app, 'export_data', { connection_id: 'db', ...args }, { requestState: state, inputResponses: { [CONSENT_KEY]: response } }, { headers, extraMeta: ELICITATION_META });

  /** Asks, checks what the user is shown, accepts; returns the tool's result. */
  async function approvedExport(args: Record<string, unknown>, shown: string): Promise<Record<string, unknown>> {
    const first: RawResponse = await ask(args);
    const state = expectInputRequired(first, args.sql as string);
    expect(first.json.result.inputRequests[CONSENT_KEY].params.message).toContain(`Its rows are written to ${shown}.`);
    return expectToolSuccess(await answer(args, state, ACCEPTED));
  }

  it('writes CSV (RFC 4180: header, CRLF, quoted fields) to a new file of mode 0600', async () => {
    const path = join(dir, 'authors.csv');
    const out = await approvedExport({ sql: AUTHORS, format: 'csv', path }, `a new CSV file ${path}`);
    const expected =
      'id,name,born\r\n1,Ursula K. Le Guin,1929\r\n2,Italo Calvino,1923\r\n3,Octavia E. Butler,1947\r\n4,"Le Guin, ""U.""\nK.",\r\n';
    expect(readFileSync(path, 'utf8')).toBe(expected);
    expect(out).toEqual({ path, format: 'csv', rows: 4, bytes: Buffer.byteLength(expected), is_truncated: false });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['authors.csv']);
  });

  it('writes JSON Lines, one object per row keyed by column name, with bound values and max_rows', async () => {
    const path = join(dir, 'authors.jsonl');
    const sql = `SELECT id, name, born FROM authors WHERE id > ${engine === 'postgres' || engine === 'duckdb' ? '$1' : '?'} ORDER BY id`;
    const out = await approvedExport({ sql, params: [1], format: 'jsonl', path, max_rows: 2 }, `a new JSONL file ${path}`);
    const expected = '{"id":2,"name":"Italo Calvino","born":1923}\n{"id":3,"name":"Octavia E. Butler","born":1947}\n';
    expect(readFileSync(path, 'utf8')).toBe(expected);
    expect(out).toEqual({ path, format: 'jsonl', rows: 2, bytes: Buffer.byteLength(expected), is_truncated: true });
  });

  it('keys JSON Lines by unique names: a repeated column name gets _2', async () => {
    const path = join(dir, 'twice.jsonl');
    await approvedExport({ sql: 'SELECT id, name AS id FROM authors WHERE id = 1', format: 'jsonl', path }, `a new JSONL file ${path}`);
    expect(readFileSync(path, 'utf8')).toBe('{"id":1,"id_2":"Ursula K. Le Guin"}\n');
  });

  it('reports the rows written, page by page, when the approved call has a progress token', async () => {
    const sql = numbers(engine, 25_000);
    const args = { sql, format: 'csv', path: join(dir, 'progress.csv') };
    const state = expectInputRequired(await ask(args), sql);
    const res = await repeatToolCall(
      app,
      'export_data',
      { connection_id: 'db', ...args },
      { requestState: state, inputResponses: { [CONSENT_KEY]: ACCEPTED } },
      { headers, extraMeta: { ...ELICITATION_META, progressToken: 'export' } },
    );
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const { data } = sseFrames(res.text);
    const written = (rows: number) => ['notifications/progress', 0.1 + (0.85 * rows) / EXPORTS.defaultRows, `${rows} row(s) written`];
    expect(data.slice(0, -1).map((frame) => [frame.method, frame.params.progress, frame.params.message])).toEqual([
      ['notifications/progress', 0, 'Checking the statement and the path'],
      ['notifications/progress', 0.1, 'Reading from Fixture'],
      written(10_000),
      written(20_000),
      written(25_000),
      ['notifications/progress', 1, '25000 row(s) written'],
    ]);
    expect(data.at(-1).result.structuredContent).toMatchObject({ rows: 25_000, is_truncated: false });
    const lines = readFileSync(args.path, 'utf8').split('\r\n');
    expect([lines.length, lines[0], lines[1], lines.at(-2)]).toEqual([25_002, 'n', '1', '25000']);
  });

  it('cancelled mid-export (notifications/cancelled), ends with -33002 and leaves no file, not even a temp file', async () => {
    const args = { connection_id: 'db', sql: slowAfterFirstPage(engine), format: 'jsonl', path: join(dir, 'cancelled.jsonl') };
    const pending = callTool(app, 'export_data', args, { id: 'export-cancel', headers });
    const dialog = await eventually(() => app.dialogs.list().find((d) => d.statement === args.sql), 'the export dialog');
    expect(app.dialogs.answer(dialog.id, 'approve')).toBe(true);
    // The first page is in the temp file: the export is under way.
    await eventually(() => readdirSync(dir).find((name) => statSync(join(dir, name)).size > 0), 'the first page written', 10_000);
    expect((await sendCancelled(app, 'export-cancel', headers)).status).toBe(202);
    expect(expectRpcError(await pending, 200, -33002, 'export-cancel')).toBeDefined();
    await expect.poll(() => readdirSync(dir), { timeout: 2_000, interval: 25 }).toEqual([]);
  });

  it('writes Parquet that DuckDB reads back with the same values and typed columns', async () => {
    const path = join(dir, 'authors.parquet');
    const out = await approvedExport({ sql: AUTHORS, format: 'parquet', path }, `a new PARQUET file ${path}`);
    expect(out).toEqual({ path, format: 'parquet', rows: 4, bytes: statSync(path).size, is_truncated: false });
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      const literal = `'${path.replaceAll("'", "''")}'`;
      const rows = (await connection.runAndReadAll(`SELECT id, name, born FROM read_parquet(${literal}) ORDER BY id`)).getRows();
      expect(rows.map((row) => row.map((v) => (typeof v === 'bigint' ? Number(v) : v)))).toEqual([
        [1, 'Ursula K. Le Guin', 1929],
        [2, 'Italo Calvino', 1923],
        [3, 'Octavia E. Butler', 1947],
        [4, TRICKY_NAME, null],
      ]);
      const types = (await connection.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(${literal}))`)).getRows();
      expect(types).toEqual([
        ['id', 'BIGINT'],
        ['name', 'VARCHAR'],
        ['born', 'BIGINT'],
      ]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });

  it('replaces an existing file only with overwrite: true, and the dialog says it replaces it', async () => {
    const path = join(dir, 'old.csv');
    writeFileSync(path, 'old contents');
    const sql = 'SELECT id FROM authors WHERE id = 1';
    expect(expectToolError(await ask({ sql, format: 'csv', path }), 'invalid_argument')).toBe(
      `invalid_argument: ${path} exists already; pass overwrite: true to replace it`,
    );
    expect(readFileSync(path, 'utf8')).toBe('old contents');
    await approvedExport({ sql, format: 'csv', path, overwrite: true }, `CSV, replacing the file ${path}`);
    expect(readFileSync(path, 'utf8')).toBe('id\r\n1\r\n');
    expect(readdirSync(dir)).toEqual(['old.csv']);
  });

  it('without elicitation, waits on Sluice’s dialog, which shows the file; approved, it writes', async () => {
    const path = join(dir, 'dialog.jsonl');
    const sql = 'SELECT id FROM authors WHERE id = 2';
    const pending = callTool(app, 'export_data', { connection_id: 'db', sql, format: 'jsonl', path }, { headers });
    const dialog = await eventually(() => app.dialogs.list().find((d) => d.statement === sql), 'the export dialog');
    expect(dialog).toMatchObject({ tool: 'export_data', statementKind: 'read', destination: { path, format: 'jsonl', replaces: false } });
    expect(existsSync(path)).toBe(false);
    expect(app.dialogs.answer(dialog.id, 'approve')).toBe(true);
    expect(expectToolSuccess(await pending)).toEqual({ path, format: 'jsonl', rows: 1, bytes: 9, is_truncated: false });
    expect(readFileSync(path, 'utf8')).toBe('{"id":2}\n');
  });

  it('writes nothing when the user declines', async () => {
    const args = { sql: AUTHORS, format: 'csv', path: join(dir, 'declined.csv') };
    const state = expectInputRequired(await ask(args), AUTHORS);
    expect(expectToolError(await answer(args, state, { action: 'decline' }), 'denied')).toBe('denied: the user did not approve the statement');
    expect(readdirSync(dir)).toEqual([]);
  });

  it.each([
    ['a relative path', { path: 'out.csv' }, 'invalid_argument: path must be absolute'],
    ['a missing directory', { path: '/no/such/dir/out.csv' }, 'invalid_argument: the directory /no/such/dir does not exist'],
    ['a directory', { path: '/tmp' }, 'invalid_argument: /tmp is a directory'],
    ['a NUL in the file name', { path: '/tmp/out\u0000.csv' }, 'invalid_argument: path must not contain a control character (U+0000)'],
    ['a line break in the path', { path: '/tmp/a\nb/out.csv' }, 'invalid_argument: path must not contain a control character (U+000A)'],
    [
      'a file name of 300 characters',
      { path: `/tmp/${'n'.repeat(296)}.csv` },
      `invalid_argument: the name ${'n'.repeat(20)}… is 300 bytes long; a file or directory name may have at most ${EXPORTS.maxNameBytes}`,
    ],
    [
      'a file name of 130 two-byte characters (260 bytes)',
      { path: `/tmp/${'é'.repeat(130)}` },
      `invalid_argument: the name ${'é'.repeat(20)}… is 260 bytes long; a file or directory name may have at most ${EXPORTS.maxNameBytes}`,
    ],
    [
      'a path past 4,095 bytes',
      { path: `/tmp${`/${'d'.repeat(200)}`.repeat(20)}/${'é'.repeat(50)}` },
      `invalid_argument: path is 4125 bytes long; at most ${EXPORTS.maxPathBytes} are allowed`,
    ],
    ['a device, even with overwrite', { path: '/dev/null', overwrite: true }, 'invalid_argument: /dev/null exists and is not a regular file'],
    [
      'a statement that writes',
      { sql: 'DELETE FROM authors WHERE id = 1' },
      'invalid_argument: export_data runs only a statement that reads; this one is write (DELETE changes data)',
    ],
  ])('refuses %s before asking, and writes nothing', async (_, change, message) => {
    const args = { sql: AUTHORS, format: 'csv', path: join(dir, 'out.csv'), ...change };
    expect(expectToolError(await ask(args), 'invalid_argument')).toBe(message);
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync('out.csv')).toBe(false);
  });

  it('refuses a bad path without opening Sluice’s dialog', async () => {
    const sql = 'SELECT id FROM authors WHERE id = 3';
    const opened = app.dialogs.list().length;
    const res = await callTool(app, 'export_data', { connection_id: 'db', sql, format: 'csv', path: join(dir, 'bad\u0000.csv') }, { headers });
    expect(expectToolError(res, 'invalid_argument')).toBe('invalid_argument: path must not contain a control character (U+0000)');
    expect(app.dialogs.list()).toHaveLength(opened);
    expect(readdirSync(dir)).toEqual([]);
  });

  it(`caps max_rows at ${EXPORTS.maxRows}`, async () => {
    const res = await ask({ sql: AUTHORS, format: 'csv', path: join(dir, 'x.csv'), max_rows: EXPORTS.maxRows + 1 });
    expect(expectRpcError(res, 400, -32602, 1).message).toBe(`Invalid arguments: arguments.max_rows must be at most ${EXPORTS.maxRows}`);
  });

  it('needs tools:write: a readOnly token gets -33007', async () => {
    const readOnly = mintToken(app, `${engine} read only`, 'readOnly').headers;
    const res = await callTool(app, 'export_data', { connection_id: 'db', sql: AUTHORS, format: 'csv', path: join(dir, 'x.csv') }, { headers: readOnly });
    expect(expectRpcError(res, 403, -33007, 1).data).toEqual({ requiredScopes: ['tools:read', 'tools:write'] });
    expect(readdirSync(dir)).toEqual([]);
  });
});
