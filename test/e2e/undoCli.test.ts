import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { undo } from '../../src/cli/undo.js';
import { readConfig } from '../../src/db/connections/savedConnections.js';
import { printed } from '../helpers/cli.js';
import { callTool, mintToken, type Minted, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * `sluice undo` stopped by rows changed since (issue 31): it prints each such row's key, how it is now
 * and how the write left it, every value as the console's table shows it (/core/exactValueText.js:
 * text quoted, numbers as SQLite holds them, bytes in hex, null) with invisible characters escaped,
 * says on stderr that nothing was undone, and exits 1; `--force` then puts the rows back.
 */

describe('sluice undo, stopped by rows changed since', () => {
  let app: TestApp;
  let writer: Minted;
  let path: string;
  const stderr: string[] = [];

  beforeAll(async () => {
    app = await startTestApp({ auth: true });
    writer = mintToken(app, 'Undo CLI writer', 'readWrite');
    const demo = readConfig(app.dataDir)?.connections.find((c) => c.id === 'demo');
    if (demo?.engine !== 'sqlite') throw new Error('the demo connection is not SQLite');
    path = demo.path;
  });
  afterAll(() => app.dispose());
  afterEach(() => {
    process.exitCode = undefined;
    vi.restoreAllMocks();
  });

  /** `sql` on the demo file on a connection of its own, as another program would run it. */
  function elsewhere(sql: string, ...params: unknown[]): void {
    const db = new Database(path, { fileMustExist: true });
    try {
      db.prepare(sql).run(...params);
    } finally {
      db.close();
    }
  }

  it('prints the rows that differ, exits 1, and --force puts them back', async () => {
    elsewhere('CREATE TABLE cli_notes (id INTEGER PRIMARY KEY, note TEXT, amount REAL, data BLOB)');
    elsewhere('INSERT INTO cli_notes VALUES (?, ?, ?, ?), (?, ?, ?, ?)', 1, 'one ', 0.5, Buffer.from([0, 255]), 2, 'two', null, null);
    const before = () => {
      const db = new Database(path, { readonly: true });
      try {
        return db.prepare("SELECT group_concat(quote(id) || ',' || quote(note) || ',' || quote(amount) || ',' || quote(data), '|') FROM cli_notes").pluck().get();
      } finally {
        db.close();
      }
    };
    const original = before();

    const pending = callTool(app, 'execute_query', { connection_id: 'demo', sql: "UPDATE cli_notes SET note = 'x' WHERE id IN (1, 2)" }, { headers: writer.headers });
    await expect.poll(() => app.dialogs.list().length, { timeout: 10_000 }).toBe(1);
    expect(app.dialogs.answer(app.dialogs.list()[0]!.id, 'approve')).toBe(true);
    expect((await pending).json).toMatchObject({ result: { isError: false } });
    const seq = app.activity.list({ limit: 5 }).find((r) => r.action === 'execute_query')!.seq;

    elsewhere('UPDATE cli_notes SET note = ? WHERE id = 1', 'moved\u202E');
    elsewhere('DELETE FROM cli_notes WHERE id = 2');
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => stderr.push(String(chunk)) > 0);

    const table = await printed(() => undo(['--data-dir', app.dataDir, String(seq)]));
    expect(table.split('\n')).toEqual([
      'KEY  NOW                               AS THE WRITE LEFT IT',
      `1    1, "moved⟨U+202E⟩", 0.5, x'00ff'  1, "x", 0.5, x'00ff'`,
      '2    (no row)                          2, "x", null, null',
      '',
    ]);
    expect(process.exitCode).toBe(1);
    expect(stderr.join('')).toBe(`sluice: 2 rows have changed since activity ${seq}; nothing was undone (sluice undo ${seq} --force overwrites them)\n`);

    expect(await printed(() => undo(['--data-dir', app.dataDir, String(seq), '--force']))).toMatch(new RegExp(`^undid activity ${seq}: 2 rows put back; the undo is activity \\d+`));
    expect(before()).toBe(original);
  });
});
