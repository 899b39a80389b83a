import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/db/connections/savedConnections.js';
import { browserSuite, chromiumAvailable, isFocused, postFromPage, SCREENSHOTS } from '../helpers/browser.js';
import { callTool, mintToken, type Minted } from '../helpers/testApp.js';

/**
 * Undo in real Chromium (docs/console.md, "Taking a write back"): a write's dialog says before approval
 * whether it can be taken back; the activity view's Undo puts the rows back byte for byte, and the
 * undo's own row can be undone in turn; a row changed since stops the undo, the dialog shows it (key,
 * now, expected, hidden characters as escapes), and Undo anyway overwrites it.
 */

const canRun = chromiumAvailable();
const unique = () => randomBytes(4).toString('hex');

/** The table's every cell as SQLite quotes it (type and bytes), row by row: equal means byte for byte. */
function tableImage(path: string, table: string): string[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(`SELECT quote(id) || '|' || quote(note) || '|' || quote(amount) || '|' || quote(data) FROM ${table} ORDER BY id`).pluck().all() as string[];
  } finally {
    db.close();
  }
}

/** Runs `sql` on the demo file on a connection of its own, as another program would. */
function runElsewhere(path: string, sql: string, ...params: unknown[]): void {
  const db = new Database(path, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

describe.runIf(canRun)('undo in the console', () => {
  const suite = browserSuite();

  const demoPath = () => {
    const demo = readConfig(suite.app.dataDir)?.connections.find((c) => c.id === 'demo');
    if (demo?.engine !== 'sqlite') throw new Error('the demo connection is not SQLite');
    return demo.path;
  };

  /** A table of awkward values in the demo database, made outside Sluice. */
  function awkwardTable(): string {
    const table = `undo_notes_${unique()}`;
    const path = demoPath();
    runElsewhere(path, `CREATE TABLE ${table} (id INTEGER PRIMARY KEY, note TEXT, amount REAL, data BLOB)`);
    runElsewhere(path, `INSERT INTO ${table} VALUES (?, ?, ?, ?)`, 1, 'trailing spaces   ', 0.1 + 0.2, ALL_BYTES);
    runElsewhere(path, `INSERT INTO ${table} VALUES (?, ?, ?, ?)`, 2, 'ünïcødé \u{1F600} e\u0301', -1e308, null);
    runElsewhere(path, `INSERT INTO ${table} VALUES (?, ?, ?, ?)`, 9007199254740993n, null, 1 / 3, Buffer.alloc(0));
    return table;
  }

  /** Asks for `sql` over MCP as a client would; the dialog that opens, and the call's answer to come. */
  async function asked(page: Page, writer: Minted, sql: string) {
    const client = `Undo client ${unique()}`;
    const pending = callTool(suite.app, 'execute_query', { connection_id: 'demo', sql }, {
      headers: writer.headers,
      extraMeta: { 'io.modelcontextprotocol/clientInfo': { name: client, version: '1.0.0' } },
    });
    const card = page.locator('article[data-dialog-id]', { has: page.locator('[data-client]', { hasText: client }) });
    // A call answered before any dialog opens fails the test with that answer.
    const answeredFirst = pending.then((answer) => Promise.reject(new Error(`answered without a dialog: ${JSON.stringify(answer.json)}`)));
    await Promise.race([card.waitFor({ timeout: 5_000 }), answeredFirst]);
    return { card, pending };
  }

  const approve = async (card: Locator, pending: ReturnType<typeof callTool>) => {
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    const answer = await pending;
    expect(answer.json?.result?.isError ?? false).toBe(false);
  };

  /** The newest activity row of an execute_query that can still be undone, once the view shows it. */
  async function undoableWrite(page: Page): Promise<Locator> {
    const write = page.locator('[data-list="activity"] > tr[data-undo="available"]').filter({ has: page.locator('code', { hasText: 'execute_query' }) }).first();
    await write.waitFor({ timeout: 5_000 });
    return write;
  }

  /** Presses `button` in the open undo dialog, and once it says the rows were put back, closes it: what it said. */
  async function undoneWith(page: Page, button: 'Undo' | 'Undo anyway'): Promise<string | null> {
    const dialog = page.locator('#activity-undo-dialog');
    await dialog.getByRole('button', { name: button, exact: true }).click();
    const outcome = dialog.locator('[data-undo-outcome]');
    await outcome.waitFor();
    const said = await outcome.textContent();
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    return said;
  }

  it('the dialog says the write can be taken back; Undo puts its rows back byte for byte, and the undo can be undone in turn', async () => {
    const { page } = await suite.open();
    const writer = mintToken(suite.app, `Undo token ${unique()}`, 'readWrite');
    const table = awkwardTable();
    const before = tableImage(demoPath(), table);

    const { card, pending } = await asked(page, writer, `UPDATE ${table} SET note = 'x', amount = 2, data = NULL WHERE id <= 2`);
    const line = card.locator('[data-undo]');
    expect(await line.getAttribute('data-undo')).toBe('possible');
    expect(await line.textContent()).toBe('You can take this back afterwards (Activity → Undo, or sluice undo).');
    await approve(card, pending);
    const after = tableImage(demoPath(), table);
    expect(after).not.toEqual(before);

    const write = await undoableWrite(page);
    const seq = await write.getAttribute('data-seq');
    await write.getByRole('button', { name: /^Undo the write of / }).click();

    const dialog = page.locator('#activity-undo-dialog');
    expect(await dialog.isVisible()).toBe(true);
    expect(await dialog.locator('[data-undo-what]').textContent()).toMatch(new RegExp(`^Puts back the rows changed by execute_query on demo at .+ \\(activity ${seq}: sluice undo ${seq} does the same\\)\\. The undo is itself a write: it is logged, and can be undone in turn\\.$`));
    expect(await undoneWith(page, 'Undo')).toBe('Undone: 2 rows put back.');
    expect(tableImage(demoPath(), table)).toEqual(before);
    // The row's button went with the list drawn again: the keyboard goes on from the section's heading.
    await expect.poll(() => isFocused(page.locator('#activity-title'))).toBe(true);

    // The write is undone; the undo's own row (newer) can itself be undone, which writes the change again.
    const undone = page.locator(`[data-list="activity"] > tr[data-seq="${seq}"]`);
    await expect.poll(() => undone.getAttribute('data-undo'), { timeout: 5_000 }).toBe('done');
    expect(await undone.locator('[data-undone]').textContent()).toBe('undone');
    const undoRow = page.locator('[data-list="activity"] > tr[data-undo="available"]');
    expect(await undoRow.count()).toBe(1);
    expect(Number(await undoRow.getAttribute('data-seq'))).toBeGreaterThan(Number(seq));
    await page.locator('#activity').screenshot({ path: join(SCREENSHOTS, 'console-activity-undo.png'), animations: 'disabled' });
    expect(await undoRow.locator('code').first().textContent()).toBe('undo');
    await undoRow.getByRole('button', { name: /^Undo the write of / }).click();
    expect(await undoneWith(page, 'Undo')).toBe('Undone: 2 rows put back.');
    expect(tableImage(demoPath(), table)).toEqual(after);
  });

  it('rows changed or deleted since stop the undo and are shown, hidden characters as escapes; Undo anyway puts the rows back', async () => {
    const { page } = await suite.open();
    const writer = mintToken(suite.app, `Undo token ${unique()}`, 'readWrite');
    const table = awkwardTable();
    const before = tableImage(demoPath(), table);

    const { card, pending } = await asked(page, writer, `UPDATE ${table} SET note = 'y' WHERE id IN (1, 2)`);
    await approve(card, pending);
    // Another program changes one of the rows the write left, and deletes another.
    runElsewhere(demoPath(), `UPDATE ${table} SET note = ?, data = NULL WHERE id = 1`, 'changed\u202E\u200B ');
    runElsewhere(demoPath(), `DELETE FROM ${table} WHERE id = 2`);

    await (await undoableWrite(page)).getByRole('button', { name: /^Undo the write of / }).click();
    const dialog = page.locator('#activity-undo-dialog');
    await dialog.getByRole('button', { name: 'Undo', exact: true }).click();

    const differs = dialog.locator('table[data-differs]');
    await differs.waitFor();
    expect(await dialog.locator('[data-undo-stopped]').textContent()).toBe(
      'Nothing was changed: 2 rows are no longer as this write left them. Undo anyway puts back the rows as they were before the write, overwriting these changes.',
    );
    expect(tableImage(demoPath(), table)[0]).toContain("'changed");
    expect(await differs.locator('thead th').allTextContents()).toEqual(['Key (id)', 'id', 'note', 'amount', 'data']);
    const lines = await differs.locator('tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('th, td')].map((cell) => `${cell.hasAttribute('data-changed') ? '*' : ''}${cell.textContent}`)),
    );
    expect(lines).toEqual([
      ['1', 'now', '1', '*"changed⟨U+202E⟩⟨U+200B⟩ " (differs)', '0.30000000000000004', '*null (differs)'],
      ['expected', '1', '*"y" (differs)', '0.30000000000000004', `*x'${ALL_BYTES.toString('hex')}' (differs)`],
      ['2', 'now', 'no row'],
      ['expected', '2', '"y"', '-1e+308', 'null'],
    ]);
    expect(await differs.locator('.escape').allTextContents()).toEqual(['⟨U+202E⟩', '⟨U+200B⟩']);
    // The keyboard is on what stopped it, read out from there.
    expect(await isFocused(dialog.locator('[data-undo-stopped]'))).toBe(true);
    // docs/console.md's picture of it (SLUICE_SCREENSHOTS=docs/screenshots refreshes it).
    await dialog.screenshot({ path: join(SCREENSHOTS, 'console-undo-differs.png'), animations: 'disabled' });

    expect(await undoneWith(page, 'Undo anyway')).toBe('Undone: 2 rows put back.');
    expect(tableImage(demoPath(), table)).toEqual(before);
  });

  it('an undo done elsewhere while the dialog asks is refused with why, and nothing changes twice', async () => {
    const session = await suite.open();
    const { page } = session;
    const writer = mintToken(suite.app, `Undo token ${unique()}`, 'readWrite');
    const table = awkwardTable();
    const { card, pending } = await asked(page, writer, `DELETE FROM ${table} WHERE id = 2`);
    await approve(card, pending);

    const write = await undoableWrite(page);
    const seq = Number(await write.getAttribute('data-seq'));
    await write.getByRole('button', { name: /^Undo the write of / }).click();
    // Another tab (or sluice undo) takes it back first.
    expect(await postFromPage(page, 'activity.undo', { seq, force: false })).toMatchObject({ ok: true, rowsAffected: 1 });
    const restored = tableImage(demoPath(), table);
    expect(restored).toHaveLength(3);

    const dialog = page.locator('#activity-undo-dialog');
    await dialog.getByRole('button', { name: 'Undo', exact: true }).click();
    const error = dialog.locator('[data-error="undo"]');
    await expect.poll(() => error.textContent()).toMatch(new RegExp(`^Could not undo: activity ${seq} was already undone \\(activity \\d+\\)$`));
    expect(await dialog.locator('[data-undo-outcome]').isHidden()).toBe(true);
    expect(tableImage(demoPath(), table)).toEqual(restored);
    expect(await isFocused(dialog.getByRole('button', { name: 'Close', exact: true }))).toBe(true);
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    expect(await dialog.isVisible()).toBe(false);
    // The one HTTP error is the refusal shown above.
    expect(session.problems.splice(0).filter((problem) => problem.startsWith('HTTP '))).toEqual([`HTTP 400 for POST ${session.origin}/api/activity.undo`]);
  });

  it('the dialog of a write to a table without a key says it cannot be undone, and why', async () => {
    const { page } = await suite.open();
    const writer = mintToken(suite.app, `Undo token ${unique()}`, 'readWrite');
    const table = `undo_nokey_${unique()}`;
    runElsewhere(demoPath(), `CREATE TABLE ${table} (note TEXT)`);
    runElsewhere(demoPath(), `INSERT INTO ${table} VALUES ('a')`);

    const { card, pending } = await asked(page, writer, `UPDATE ${table} SET note = 'b' WHERE note = 'a'`);
    const line = card.locator('[data-undo]');
    expect(await line.getAttribute('data-undo')).toBe('impossible');
    expect(await line.textContent()).toBe(`This write cannot be undone: ${table} has no primary key or unique key of columns never null, to match its rows by.`);
    await card.getByRole('button', { name: 'Deny', exact: true }).click();
    await pending;
  });
});
