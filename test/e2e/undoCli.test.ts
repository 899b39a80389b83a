import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, runSluice, SLUICE_BIN, spawnServe, waitForHandshake } from '../helpers/cli.js';
import { type FixtureApp, startFixtureApp } from '../helpers/engines.js';
import { bearer, callTool, type Minted, mintToken } from '../helpers/testApp.js';

/**
 * `sluice undo` as a person runs it (the built command, against a running Sluice): what it prints, and
 * its exit codes — 0 when the write was taken back, 1 when rows changed since (their table on stdout) or
 * the row cannot be undone (one line on stderr), 2 for a usage mistake.
 */

type Run = { code: number; stdout: string; stderr: string };
/** The command in a child process, awaited: the application answering it runs in this one. */
const sluice = (args: string[]) =>
  new Promise<Run>((resolve) => {
    execFile(process.execPath, [SLUICE_BIN, ...args], { encoding: 'utf8', timeout: 20_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

describe('sluice undo', () => {
  let served: FixtureApp;
  let writer: Minted;
  const dir = () => ['--data-dir', served.app.dataDir];
  const titles = () => served.fixture.query('SELECT id, title FROM books WHERE id IN (1, 2) ORDER BY id');

  beforeAll(async () => {
    served = await startFixtureApp('sqlite', { auth: true });
    writer = mintToken(served.app, 'CLI writer', 'readWrite');
  });
  afterAll(() => served.dispose());

  async function approved(sql: string): Promise<number> {
    const { app } = served;
    const pending = callTool(app, 'execute_query', { connection_id: 'db', sql }, { headers: writer.headers });
    await expect.poll(() => app.dialogs.list().length, { timeout: 10_000 }).toBe(1);
    expect(app.dialogs.answer(app.dialogs.list()[0]!.id, 'approve')).toBe(true);
    expect(await pending).toMatchObject({ json: { result: { isError: false } } });
    return app.activity.list({ limit: 20 }).find((r) => r.action === 'execute_query')!.seq;
  }

  it('puts the rows back and says how to undo the undo; a second time it refuses, exit 1', async () => {
    const seq = await approved("UPDATE books SET title = 'CLI' WHERE id IN (1, 2)");
    const listed = await sluice(['activity', ...dir(), '--limit', '5']);
    expect(listed.code).toBe(0);
    const header = listed.stdout.split('\n')[0]!;
    expect(header).toMatch(/\bUNDO\s+ID$/);
    expect(listed.stdout.split('\n').find((line) => line.includes('execute_query'))).toMatch(new RegExp(`\\savailable\\s+${seq}$`));

    const undone = await sluice(['undo', String(seq), ...dir()]);
    expect(undone).toEqual({ code: 0, stdout: `undid activity ${seq}: 2 rows put back; the undo is activity ${seq + 1} (sluice undo ${seq + 1} takes it back)\n`, stderr: '' });
    expect(await titles()).toEqual([[1, 'Book 01'], [2, 'Book 02']]);

    expect(await sluice(['undo', String(seq), ...dir()])).toEqual({ code: 1, stdout: '', stderr: `sluice: activity ${seq} was already undone (activity ${seq + 1})\n` });
    const json = await sluice(['undo', String(seq + 1), '--json', ...dir()]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ ok: true, rowsAffected: 2, undoSeq: seq + 2 });
    expect(await titles()).toEqual([[1, 'CLI'], [2, 'CLI']]);
  });

  it('stops on a row changed since: the table of rows on stdout, exit 1; --force overwrites', async () => {
    const seq = await approved("UPDATE books SET title = 'Mine' WHERE id IN (1, 2)");
    await served.fixture.query("UPDATE books SET title = 'Theirs' WHERE id = 2");
    const stopped = await sluice(['undo', String(seq), ...dir()]);
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toBe(
      [
        'columns: id, author_id, title, price',
        'KEY   NOW                   AS THE WRITE LEFT IT',
        'id=2  2, 2, "Theirs", 11.5  2, 2, "Mine", 11.5',
        '',
      ].join('\n'),
    );
    expect(stopped.stderr).toBe(`sluice: 1 row has changed since activity ${seq}; nothing was undone (sluice undo ${seq} --force overwrites it)\n`);
    expect(await titles()).toEqual([[1, 'Mine'], [2, 'Theirs']]);

    expect(await sluice(['undo', String(seq), '--force', ...dir()])).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^undid activity ${seq}: 2 rows put back`)) });
    expect(await titles()).toEqual([[1, 'CLI'], [2, 'CLI']]);
  });

  it('shows the differing rows\' values as the console does: bytes in hex, null, a row gone, invisible characters escaped', async () => {
    await served.fixture.query('CREATE TABLE cli_notes (id INTEGER PRIMARY KEY, note TEXT, amount REAL, data BLOB)');
    await served.fixture.query("INSERT INTO cli_notes VALUES (1, 'one ', 0.5, X'00FF'), (2, 'two', NULL, NULL)");
    const seq = await approved("UPDATE cli_notes SET note = 'x' WHERE id IN (1, 2)");
    await served.fixture.query('UPDATE cli_notes SET note = ? WHERE id = 1', ['moved\u202E']);
    await served.fixture.query('DELETE FROM cli_notes WHERE id = 2');
    const stopped = await sluice(['undo', String(seq), ...dir()]);
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toBe(
      [
        'columns: id, note, amount, data',
        'KEY   NOW                               AS THE WRITE LEFT IT',
        `id=1  1, "moved⟨U+202E⟩", 0.5, x'00ff'  1, "x", 0.5, x'00ff'`,
        'id=2  (no row)                          2, "x", null, null',
        '',
      ].join('\n'),
    );
    expect(await sluice(['undo', String(seq), '--force', ...dir()])).toMatchObject({ code: 0 });
    expect(await served.fixture.query('SELECT id, note, amount, hex(data) FROM cli_notes ORDER BY id')).toEqual([[1, 'one ', 0.5, '00FF'], [2, 'two', null, '']]);
  });

  it('refuses a row that kept nothing with why, and a malformed id as a usage mistake (exit 2)', async () => {
    await callTool(served.app, 'execute_query', { connection_id: 'db', sql: 'SELECT count(*) FROM books' }, { headers: writer.headers });
    const read = served.app.activity.list({ limit: 1 })[0]!.seq;
    expect(await sluice(['undo', String(read), ...dir()])).toEqual({
      code: 1,
      stdout: '',
      stderr: `sluice: activity ${read} kept no rows: only an approved INSERT, UPDATE or DELETE can be undone\n`,
    });
    expect(await sluice(['undo', '99999', ...dir()])).toEqual({ code: 1, stdout: '', stderr: 'sluice: no activity row 99999\n' });
    for (const args of [['undo'], ['undo', 'abc'], ['undo', '0'], ['undo', '1', '2']]) {
      expect(await sluice([...args, ...dir()])).toEqual({ code: 2, stdout: '', stderr: 'sluice: usage: sluice undo ACTIVITY-ID [--force] [--json]\n' });
    }
    const help = await sluice(['undo', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('sluice undo ACTIVITY-ID [--force] [--json]');
  });
});

describe('sluice serve --no-undo', () => {
  it('keeps nothing: a waiting dialog says so in sluice approvals, and the approved write cannot be undone', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-no-undo-'));
    const created = runSluice(['tokens', 'create', '--name', 'no undo', '--level', 'readWrite', '--data-dir', dataDir]);
    expect(created.status).toBe(0);
    const serve = spawnServe(['--port', '0', '--no-console', '--no-undo', '--data-dir', dataDir]);
    try {
      const { port } = await waitForHandshake(dataDir);
      const sql = "INSERT INTO genres (name) VALUES ('No undo')";
      const pending = callTool({ url: `http://127.0.0.1:${port}/mcp` }, 'execute_query', { connection_id: 'demo', sql }, { headers: bearer(created.stdout.trim()) });
      let waiting: Array<{ id: string; undo: unknown }> = [];
      await expect.poll(async () => (waiting = JSON.parse((await sluice(['approvals', '--json', '--data-dir', dataDir])).stdout)).length, { timeout: 10_000 }).toBe(1);
      expect(waiting[0]?.undo).toEqual({ possible: false, why: 'undo is turned off (the "undo" setting)' });
      expect((await sluice(['approvals', '--data-dir', dataDir])).stdout).toContain('    undo:          cannot be undone: undo is turned off (the "undo" setting)\n');
      expect((await sluice(['approve', waiting[0]!.id, '--data-dir', dataDir])).code).toBe(0);
      expect(await pending).toMatchObject({ json: { result: { isError: false } } });
      // The activity log's writer thread records the tool's row a moment after the answer.
      let row: { seq: number; undo: unknown } | undefined;
      const toolRow = async () => ([row] = JSON.parse((await sluice(['activity', '--json', '--category', 'tool', '--limit', '1', '--data-dir', dataDir])).stdout)) && row;
      await expect.poll(toolRow, { timeout: 10_000 }).toMatchObject({ action: 'execute_query', undo: null });
      expect(await sluice(['undo', String(row!.seq), '--data-dir', dataDir])).toEqual({
        code: 1,
        stdout: '',
        stderr: `sluice: activity ${row!.seq} cannot be undone: undo is turned off (the "undo" setting)\n`,
      });
    } finally {
      serve.child.kill('SIGTERM');
      await exited(serve.child);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
