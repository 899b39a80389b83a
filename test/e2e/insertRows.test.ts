import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSERTS } from '../../src/core/contract.js';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import { ACCEPTED, CONSENT_KEY, ELICITATION_META, expectInputRequired, repeatToolCall } from '../helpers/consentRoundTrip.js';
import type { Engine } from '../../src/db/database.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, createFixture, type EngineFixture } from '../helpers/engines.js';
import { expectRpcError, expectToolError, expectToolSuccess } from '../helpers/rpcAssertions.js';
import { eventually } from '../helpers/polling.js';
import { callTool, mintToken, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * insert_rows on each engine (issue 19): one multi-row INSERT with quoted identifiers and bound values;
 * the consent shows the rows as a table and the statement; rows land only after the user accepts.
 */

const engines = await availableEngines();

/** The INSERT Sluice generates for `rows` rows of (id, name, born) into the fixture's authors. */
function expectedInsert(engine: Engine, schema: string, rows: number): string {
  const quote = (name: string) => (engine === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const mark = (n: number) => (engine === 'postgres' || engine === 'duckdb' ? `$${n}` : '?');
  const tuples = Array.from({ length: rows }, (_, i) => `(${mark(3 * i + 1)}, ${mark(3 * i + 2)}, ${mark(3 * i + 3)})`);
  return `INSERT INTO ${quote(schema)}.${quote('authors')} (${quote('id')}, ${quote('name')}, ${quote('born')}) VALUES ${tuples.join(', ')}`;
}

describe.each(engines)('insert_rows on %s', (engine) => {
  skipListed('insertRows', engine);
  let fixture: EngineFixture;
  let app: TestApp;
  let dataDir: string;
  let headers: Record<string, string>;
  let schema: string;

  beforeAll(async () => {
    fixture = await createFixture(engine);
    schema = { sqlite: 'main', postgres: 'public', mysql: fixture.database, duckdb: 'main' }[engine];
    dataDir = mkdtempSync(join(tmpdir(), `sluice-insert-${engine}-`));
    writeConfig(dataDir, { connections: [fixture.connection] });
    app = await startTestApp({ dataDir, auth: true });
    headers = mintToken(app, `${engine} insert`).headers;
  });
  afterAll(async () => {
    await app?.dispose();
    await fixture?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const ask = (rows: unknown[]) => callTool(app, 'insert_rows', { connection_id: 'db', table: 'authors', rows }, { headers, extraMeta: ELICITATION_META });
  const answer = (rows: unknown[], state: string, response: unknown) =>
    repeatToolCall(app, 'insert_rows', { connection_id: 'db', table: 'authors', rows }, { requestState: state, inputResponses: { [CONSENT_KEY]: response } }, { headers, extraMeta: ELICITATION_META });
  const authorCount = async () => Number((await fixture.query('SELECT count(*) FROM authors'))[0]?.[0]);

  const TWO = [
    { id: 10, name: 'Stanisław Lem', born: 1921 },
    { born: null, name: 'A "quoted", name', id: 11 },
  ];

  it('shows the rows as a table and the INSERT, and the rows land once the user accepts', async () => {
    const first = await ask(TWO);
    const state = expectInputRequired(first, expectedInsert(engine, schema, 2));
    const message: string = first.json.result.inputRequests[CONSENT_KEY].params.message;
    expect(message).toContain(
      [
        `Rows to insert into ${schema}.authors (2):`,
        'id | name               | born',
        '---+--------------------+-----',
        '10 | "Stanisław Lem"    | 1921',
        '11 | "A "quoted", name" | null',
        'Statement, 1 line:',
        `1 | ${expectedInsert(engine, schema, 2)}`,
        // Tried in a transaction that was rolled back: the rows as the database would add them.
        '2 rows will change (tried, then rolled back).',
        'Changed rows (- before, + after, * a value that changes):',
        '  | id | name               | born',
        '--+----+--------------------+-----',
        '+ | 10 | "Stanisław Lem"    | 1921',
        '+ | 11 | "A "quoted", name" | null',
        // books' foreign key cascades from authors (DuckDB keeps no ON DELETE CASCADE): undoing the INSERT could delete books added since.
        engine === 'duckdb'
          ? 'It can be undone once it ran (sluice undo, or Undo in the console’s activity).'
          : 'It cannot be undone: foreign keys of other tables cascade from authors, so the write or its undo would change more than one table.',
        'Approve it only if you expect this change.',
      ].join('\n'),
    );
    expect(expectToolSuccess(await answer(TWO, state, ACCEPTED))).toEqual({ table: 'authors', rows_affected: 2 });
    expect(await fixture.query('SELECT id, name, born FROM authors WHERE id >= 10 ORDER BY id')).toEqual([
      [10, 'Stanisław Lem', 1921],
      [11, 'A "quoted", name', null],
    ]);
  });

  it(`shows at most ${INSERTS.shownRows} rows, then how many more`, async () => {
    const rows = Array.from({ length: INSERTS.shownRows + 5 }, (_, i) => ({ id: 100 + i, name: `Author ${i}`, born: null }));
    const first = await ask(rows);
    expectInputRequired(first, expectedInsert(engine, schema, rows.length));
    const message: string = first.json.result.inputRequests[CONSENT_KEY].params.message;
    expect(message).toContain(`Rows to insert into ${schema}.authors (25):`);
    expect(message).toContain(`119 | "Author 19" | null\nand 5 more rows\nStatement, 1 line:`);
    expect(message).not.toContain('"Author 20"');
  });

  it('without elicitation, Sluice’s dialog shows the rows; denied, the table is unchanged', async () => {
    const before = await authorCount();
    const rows = [{ id: 70, name: 'In a dialog', born: true }];
    const sql = expectedInsert(engine, schema, 1);
    const pending = callTool(app, 'insert_rows', { connection_id: 'db', table: 'authors', rows }, { headers });
    const dialog = await eventually(() => app.dialogs.list().find((d) => d.statement === sql), 'the insert dialog');
    expect(dialog).toMatchObject({
      tool: 'insert_rows',
      statementKind: 'write',
      rows: { table: `${schema}.authors`, columns: ['id', 'name', 'born'], shown: [[70, 'In a dialog', true]], total: 1 },
    });
    expect(app.dialogs.answer(dialog.id, 'deny')).toBe(true);
    expect(expectToolError(await pending, 'denied')).toBe('denied: the user denied the statement in Sluice');
    expect(await authorCount()).toBe(before);
  });

  it('a declined insert leaves the table unchanged', async () => {
    const before = await authorCount();
    const rows = [{ id: 50, name: 'Declined', born: null }];
    const state = expectInputRequired(await ask(rows), expectedInsert(engine, schema, 1));
    expect(expectToolError(await answer(rows, state, { action: 'decline' }), 'denied')).toBe('denied: the user did not approve the statement');
    expect(await authorCount()).toBe(before);
  });

  it.each([
    ['rows whose columns differ', [{ id: 60, name: 'a' }, { id: 61, born: 1 }], 'invalid_argument: rows[1] must name the same columns as rows[0]'],
    ['a row with an extra column', [{ id: 60, name: 'a' }, { id: 61, name: 'b', born: 1 }], 'invalid_argument: rows[1] must name the same columns as rows[0]'],
    ['an unknown column', [{ id: 60, name: 'a', nickname: 'b' }], 'invalid_argument: the table authors has no column "nickname"; call describe_table'],
    ['a value that is not a scalar', [{ id: 60, name: { first: 'a' } }], 'invalid_argument: the values of rows[0] must be strings, numbers, booleans or null'],
    ['a row naming no column', [{}], 'invalid_argument: rows[0] names no column'],
  ])('refuses %s before asking', async (_, rows, message) => {
    const before = await authorCount();
    expect(expectToolError(await ask(rows), 'invalid_argument')).toBe(message);
    expect(await authorCount()).toBe(before);
  });

  it(`takes 1 to ${INSERTS.maxRows} rows, and at most ${INSERTS.maxValues} values`, async () => {
    const many = Array.from({ length: INSERTS.maxRows + 1 }, (_, i) => ({ id: i }));
    expect(expectRpcError(await ask(many), 400, -32602, 1).message).toBe(`Invalid arguments: arguments.rows must have at most ${INSERTS.maxRows} items`);
    expect(expectRpcError(await ask([]), 400, -32602, 1).message).toBe('Invalid arguments: arguments.rows must have at least 1 items');
    const columns = Math.floor(INSERTS.maxValues / INSERTS.maxRows) + 1;
    const wide = Array.from({ length: INSERTS.maxRows }, () => Object.fromEntries(Array.from({ length: columns }, (_, c) => [`c${c}`, c])));
    expect(expectToolError(await ask(wide), 'invalid_argument')).toBe(
      `invalid_argument: the rows hold over ${INSERTS.maxValues} values; insert them in smaller batches`,
    );
  });

  it('needs tools:write: a readOnly token gets -33007', async () => {
    const readOnly = mintToken(app, `${engine} read only`, 'readOnly').headers;
    const res = await callTool(app, 'insert_rows', { connection_id: 'db', table: 'authors', rows: TWO }, { headers: readOnly });
    expect(expectRpcError(res, 403, -33007, 1).data).toEqual({ requiredScopes: ['tools:read', 'tools:write'] });
  });
});
