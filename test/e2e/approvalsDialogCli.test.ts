import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { approvals } from '../../src/cli/approvals.js';
import { expectToolError } from '../helpers/rpcAssertions.js';
import { callTool, mintToken, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * `sluice approvals` shows a waiting write as the console does, in plain text: numbered lines, every
 * invisible or control character (a terminal's escape sequences included) as ⟨U+…⟩, each bound value
 * with its type, who asks and the rows it would change.
 */
describe('sluice approvals: a write dialog in the terminal', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ auth: true });
  });
  afterAll(() => app?.dispose());

  /** What `sluice approvals` prints while one dialog waits. */
  async function printed(): Promise<string[]> {
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      await approvals(['--data-dir', app.dataDir]);
    } finally {
      spy.mockRestore();
    }
    return written.join('').split('\n');
  }

  it('escapes what could hide part of the statement, and lists every value with its type', async () => {
    const writer = mintToken(app, 'Terminal writer', 'readWrite');
    const sql = "UPDATE genres SET name = ? -- \u202Eesrever\nWHERE name = 'x\u200B' AND id > ?";
    const pending = callTool(app, 'execute_query', { connection_id: 'demo', sql, params: ['a\u001b[2Jb', 7] }, {
      headers: writer.headers,
      extraMeta: { 'io.modelcontextprotocol/clientInfo': { name: 'Term\u202Eclient', version: '1' } },
    });
    await expect.poll(() => app.dialogs.list().length, { timeout: 5_000 }).toBe(1);
    const [dialog] = app.dialogs.list();

    const lines = await printed();
    expect(lines[0]).toBe(`${dialog!.id}  write statement  Term⟨U+202E⟩client (self-declared) on Demo bookshop (execute_query)`);
    expect(lines.slice(1, 10)).toEqual([
      '    why:           UPDATE changes data',
      '    token:         Terminal writer (readWrite)',
      `    database:      SQLite ${dialog!.database}`,
      '    statement:     2 lines',
      '      1 | UPDATE genres SET name = ? -- ⟨U+202E⟩esrever',
      "      2 | WHERE name = 'x⟨U+200B⟩' AND id > ?",
      '    ?1:            string "a⟨U+001B⟩[2Jb"',
      '    ?2:            integer 7',
      '    rows:          0 rows will change (tried, then rolled back)',
    ]);
    for (const hidden of ['\u202e', '\u200b', '\u001b']) expect(lines.join('\n')).not.toContain(hidden);

    expect(app.dialogs.answer(dialog!.id, 'deny')).toBe(true);
    expectToolError(await pending, 'denied');
  });

  it('shows the rows a tried write would change, before and after, each changed value marked', async () => {
    const writer = mintToken(app, 'Terminal changer', 'readWrite');
    const pending = callTool(app, 'execute_query', { connection_id: 'demo', sql: 'UPDATE genres SET name = name || ? WHERE id = 1', params: ['\u200B'] }, { headers: writer.headers });
    await expect.poll(() => app.dialogs.list().length, { timeout: 5_000 }).toBe(1);
    const [dialog] = app.dialogs.list();
    const lines = await printed();
    const at = lines.indexOf('    rows:          1 row will change (tried, then rolled back)');
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 6)).toEqual([
      '    Changed rows (- before, + after, * a value that changes):',
      '        | id | name',
      '      --+----+----------------------------',
      '      - | 1  | "Literary Fiction"',
      '      + | 1  | "Literary Fiction⟨U+200B⟩"*',
    ]);
    expect(app.dialogs.answer(dialog!.id, 'deny')).toBe(true);
    expectToolError(await pending, 'denied');
  });

  it('shows the file an export writes, and the rows an insert adds instead of its values one by one', async () => {
    const writer = mintToken(app, 'Terminal exporter', 'readWrite');
    const dir = mkdtempSync(join(tmpdir(), 'sluice-approvals-'));
    try {
      const path = join(dir, 'genres\u202E.csv');
      const exporting = callTool(app, 'export_data', { connection_id: 'demo', sql: 'SELECT id, name FROM genres', format: 'csv', path }, { headers: writer.headers });
      await expect.poll(() => app.dialogs.list().length, { timeout: 5_000 }).toBe(1);
      const [exportDialog] = app.dialogs.list();
      expect(await printed()).toContain(`    writes to:     a new CSV file ${join(dir, 'genres⟨U+202E⟩.csv')}`);
      expect(app.dialogs.answer(exportDialog!.id, 'deny')).toBe(true);
      expectToolError(await exporting, 'denied');

      const rows = [
        { id: 9101, name: 'Tab\tled' },
        { id: 9102, name: null },
      ];
      const inserting = callTool(app, 'insert_rows', { connection_id: 'demo', table: 'genres', rows }, { headers: writer.headers });
      await expect.poll(() => app.dialogs.list().length, { timeout: 5_000 }).toBe(1);
      const [insertDialog] = app.dialogs.list();
      const lines = await printed();
      const at = lines.indexOf('    rows to insert into main.genres (2):');
      expect(at).toBeGreaterThan(0);
      expect(lines.slice(at + 1, at + 5)).toEqual(['      id   | name', '      -----+-----------------', '      9101 | "Tab⟨U+0009⟩led"', '      9102 | null']);
      expect(lines.some((line) => /^ {4}\?\d+:/.test(line))).toBe(false);
      expect(app.dialogs.answer(insertDialog!.id, 'deny')).toBe(true);
      expectToolError(await inserting, 'denied');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
