import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityRow } from '../../src/activity/activityLog.js';
import { activity } from '../../src/cli/activity.js';
import { callControl } from '../../src/cli/controlClient.js';
import type { UndoAnswer } from '../../src/control/undoCommand.js';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import type { Engine } from '../../src/db/database.js';
import { printed } from '../helpers/cli.js';
import { approvedWrite } from '../helpers/approvedWrite.js';
import { availableEngines, type FixtureApp, startFixtureApp } from '../helpers/engines.js';
import { callTool, type Minted, mintToken, startTestApp } from '../helpers/testApp.js';

/**
 * Undo over MCP (issue 31, items 2 and 3) on every engine: a write approved in Sluice's dialog keeps its
 * rows; the dialog said beforehand whether it could be undone, and why not; the activity row names what
 * was kept; `activity.undo` (the control socket's handler, which `sluice undo` and the console call)
 * puts the table back byte for byte by the engine's own digest; a row changed since stops it and nothing
 * changes, unless forced; the undo is itself undoable; the activity rows say what can still be undone.
 */

const engines = await availableEngines();

/** The whole `books` table as the engine itself renders it, in key order. */
const DIGEST: Record<Engine, string> = {
  sqlite: "SELECT group_concat(r, '|') FROM (SELECT quote(id) || ',' || quote(author_id) || ',' || quote(title) || ',' || quote(price) AS r FROM books ORDER BY id)",
  postgres: "SELECT md5(string_agg(b::text, '|' ORDER BY id)) FROM books b",
  mysql: 'CHECKSUM TABLE books EXTENDED',
  duckdb: "SELECT md5(string_agg(CAST(b AS VARCHAR), '|' ORDER BY id)) FROM books b",
};

/** Rows an undo keeps at most in this suite: lowered (AppOptions.undo) so that a 25-row UPDATE is over it. */
const MAX_ROWS = 10;

describe.each(engines)('undo on %s', (engine) => {
  let served: FixtureApp;
  let writer: Minted;
  const digest = async () => JSON.stringify(await served.fixture.query(DIGEST[engine]));

  beforeAll(async () => {
    served = await startFixtureApp(engine, { auth: true, undo: { maxRows: MAX_ROWS } });
    writer = mintToken(served.app, 'Undo writer', 'readWrite');
  });
  afterAll(() => served.dispose());

  const approved = (sql: string) => approvedWrite(served.app, writer.headers, sql);

  const undo = (seq: number, force = false) => callControl(served.app.dataDir, 'activity.undo', { seq, force }) as Promise<UndoAnswer>;
  const shown = async () => JSON.parse(await printed(() => activity(['--data-dir', served.app.dataDir, '--json', '--limit', '100']))) as (ActivityRow & { undo: string | null })[];
  const undoStateOf = async (seq: number) => (await shown()).find((r) => r.seq === seq)?.undo;

  it('takes back an UPDATE byte for byte, and the undo in turn', async () => {
    const original = await digest();
    const { dialog, row, detail } = await approved("UPDATE books SET title = 'Changed  ü', price = 1.25 WHERE author_id = 2");
    expect(dialog.undo).toEqual({ possible: true });
    expect(detail).toEqual({ undo: expect.stringMatching(/^[0-9a-f]{16}$/) });
    const updated = await digest();
    expect(updated).not.toBe(original);
    expect(await undoStateOf(row.seq)).toBe('available');

    const answer = await undo(row.seq);
    expect(answer).toEqual({ ok: true, rowsAffected: 8, undoSeq: expect.any(Number) });
    expect(await digest()).toBe(original);
    const undoSeq = (answer as { undoSeq: number }).undoSeq;
    const undoRow = served.app.activity.row(undoSeq)!;
    expect(undoRow).toMatchObject({ category: 'admin', action: 'undo', outcome: 'success', connection_id: 'db', rows: 8 });
    expect(JSON.parse(undoRow.detail!)).toEqual({ undo: expect.stringMatching(/^[0-9a-f]{16}$/), of: row.seq, forced: false });
    expect(await undoStateOf(row.seq)).toBe('done');
    expect(await undoStateOf(undoSeq)).toBe('available');
    await expect(undo(row.seq)).rejects.toThrow(`activity ${row.seq} was already undone (activity ${undoSeq})`);

    // The undo is a write of its own: taking it back makes the UPDATE's rows again.
    expect(await undo(undoSeq)).toEqual({ ok: true, rowsAffected: 8, undoSeq: expect.any(Number) });
    expect(await digest()).toBe(updated);
    expect(await undoStateOf(undoSeq)).toBe('done');
    // And back to where it started, for the tests after this one.
    const again = served.app.activity.list({ limit: 1 })[0]!;
    expect(again.action).toBe('undo');
    expect(await undo(again.seq)).toMatchObject({ ok: true, rowsAffected: 8 });
    expect(await digest()).toBe(original);
  });

  it('takes back an INSERT and a DELETE', async () => {
    const original = await digest();
    const inserted = await approved("INSERT INTO books (id, author_id, title, price) VALUES (101, 1, 'New', 9.99), (102, 3, 'Newer  ', NULL)");
    expect(inserted.dialog.undo).toEqual({ possible: true });
    expect(await undo(inserted.row.seq)).toMatchObject({ ok: true, rowsAffected: 2 });
    expect(await digest()).toBe(original);

    const deleted = await approved('DELETE FROM books WHERE author_id = 3');
    expect(deleted.dialog.undo).toEqual({ possible: true });
    expect(await served.fixture.query('SELECT count(*) FROM books')).toEqual([[engine === 'postgres' ? '17' : 17]]);
    expect(await undo(deleted.row.seq)).toMatchObject({ ok: true, rowsAffected: 8 });
    expect(await digest()).toBe(original);
  });

  it('stops when a row changed since, changing nothing, unless forced', async () => {
    const original = await digest();
    const { row } = await approved('UPDATE books SET price = 2 WHERE id IN (1, 2, 3)');
    await served.fixture.query("UPDATE books SET title = 'Someone else' WHERE id = 2");
    await served.fixture.query('DELETE FROM books WHERE id = 3');
    const changed = await digest();

    const stopped = await undo(row.seq);
    expect(stopped).toMatchObject({
      ok: false,
      differs: [
        { key: [expect.anything()], now: expect.any(Array), expected: expect.any(Array) },
        { key: [expect.anything()], now: null, expected: expect.any(Array) },
      ],
    });
    // The columns the rows hold, and which of them are the key (the console's table of them is headed by these).
    expect(stopped).toMatchObject({ columns: ['id', 'author_id', 'title', 'price'], keys: [0] });
    expect((stopped as { differs: unknown[] }).differs).toHaveLength(2);
    expect(await digest()).toBe(changed);
    expect(await undoStateOf(row.seq)).toBe('available');
    const refused = served.app.activity.list({ limit: 1 })[0]!;
    expect(refused).toMatchObject({ action: 'undo', outcome: 'error', error: 'rows_changed' });

    const forced = await undo(row.seq, true);
    expect(forced).toMatchObject({ ok: true, rowsAffected: 3 });
    expect(await digest()).toBe(original);
    // The forced undo inserted one row again and overwrote another: taken back, both are as it found them.
    const forcedSeq = (forced as { undoSeq: number }).undoSeq;
    const undoneAgain = await undo(forcedSeq);
    expect(undoneAgain).toMatchObject({ ok: true, rowsAffected: 3 });
    expect(await digest()).toBe(changed);
    expect(await undo((undoneAgain as { undoSeq: number }).undoSeq)).toMatchObject({ ok: true, rowsAffected: 3 });
    expect(await digest()).toBe(original);
  });

  it('says before approval what cannot be undone, and why; the activity row says it too', async () => {
    await served.fixture.query('CREATE TABLE nokey (v INTEGER)');
    await served.fixture.query('INSERT INTO nokey (v) VALUES (1), (2)');
    const keyless = await approved('UPDATE nokey SET v = v + 1 WHERE v > 0');
    const why = 'nokey has no primary key or unique key of columns never null, to match its rows by';
    expect(keyless.dialog.undo).toEqual({ possible: false, why });
    expect(keyless.detail).toEqual({ undo_unavailable: why });
    expect(await undoStateOf(keyless.row.seq)).toBeNull();
    await expect(undo(keyless.row.seq)).rejects.toThrow(`activity ${keyless.row.seq} cannot be undone: ${why}`);

    const many = await approved('UPDATE books SET price = price + 1 WHERE id > 0');
    expect(many.dialog.undo).toEqual({ possible: false, why: `it changes 25 rows, more than the ${MAX_ROWS} rows an undo keeps` });
    await served.fixture.query('UPDATE books SET price = price - 1 WHERE id > 0');

    const moved = await approved('UPDATE books SET id = id + 1000 WHERE id = 25');
    expect(moved.dialog.undo).toEqual({ possible: false, why: 'it changes key columns (id), which its rows are matched by' });
    await served.fixture.query('UPDATE books SET id = 25 WHERE id = 1025');

    await expect(undo(999_999)).rejects.toThrow('no activity row 999999');
  });
});

describe('the undo setting', () => {
  it('"undo": false in config.json keeps nothing: the dialog and the activity row say so, and saving connections keeps the setting', async () => {
    const served = await startFixtureApp('sqlite', { auth: true });
    const { app, fixture } = served;
    const configFile = join(app.dataDir, 'config.json');
    await app.stop();
    writeFileSync(configFile, JSON.stringify({ ...JSON.parse(readFileSync(configFile, 'utf8')), undo: false }));
    const off = await startTestApp({ dataDir: app.dataDir, auth: true });
    try {
      const writer = mintToken(off, 'Undo off', 'readWrite');
      const pending = callTool(off, 'execute_query', { connection_id: 'db', sql: 'DELETE FROM books WHERE id = 1' }, { headers: writer.headers });
      await expect.poll(() => off.dialogs.list().length, { timeout: 10_000 }).toBe(1);
      const [dialog] = off.dialogs.list();
      expect(dialog?.undo).toEqual({ possible: false, why: 'undo is turned off (the "undo" setting)' });
      off.dialogs.answer(dialog!.id, 'approve');
      expect(await pending).toMatchObject({ json: { result: { isError: false } } });
      const row = off.activity.list({ limit: 5 }).find((r) => r.action === 'execute_query')!;
      expect(JSON.parse(row.detail!)).toEqual({ undo_unavailable: 'undo is turned off (the "undo" setting)' });
      expect(existsSync(join(off.dataDir, 'undo'))).toBe(false);

      // A change to the saved connections rewrites config.json: the setting stays.
      writeConfig(off.dataDir, { connections: [{ ...fixture.connection, name: 'Renamed' }] });
      expect(JSON.parse(readFileSync(configFile, 'utf8'))).toMatchObject({ undo: false, connections: [{ id: 'db', name: 'Renamed' }] });
    } finally {
      await off.dispose();
      await served.dispose();
    }
  });
});
