import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, chromiumAvailable, screenshot } from '../helpers/browser.js';

/**
 * Managing connections in the console in real Chromium (issue 20, item 4): a file that is not a
 * database is refused with the exact reason and nothing is saved; renaming and repointing are checked
 * like `sluice connections update`; Test shows the server version and latency; Remove asks in the
 * page's own dialog, naming the connection, and only its Remove button removes.
 */

const canRun = chromiumAvailable();
const text = async (locator: Locator) => ((await locator.textContent()) ?? '').trim();

describe.runIf(canRun)('managing connections in Chromium', () => {
  const suite = browserSuite();
  let dir: string;
  let notesPath: string;
  let textPath: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-console-connections-'));
    notesPath = join(dir, 'notes.db');
    const db = new Database(notesPath);
    db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
    db.close();
    textPath = join(dir, 'notes.txt');
    writeFileSync(textPath, 'these are notes, not a database\n'.repeat(10));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const savedIds = () =>
    (JSON.parse(readFileSync(join(suite.app.dataDir, 'config.json'), 'utf8')) as { connections: Array<{ id: string; name: string; path?: string }> }).connections;
  const row = (page: Page, id: string) => page.locator(`tr[data-connection-id="${id}"]`);

  async function addSqlite(page: Page, name: string, path: string) {
    const form = page.locator('#connection-form');
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('SQLite file').check();
    await form.getByLabel('File path').fill(path);
    await form.getByRole('button', { name: 'Add connection' }).click();
  }

  it('add, edit, test and remove a connection', async () => {
    const session = await suite.open();
    const { page } = session;
    /** The refusals the page was answered with since the last call (each one expected), taken off the session's list. */
    const refusals = () => session.problems.splice(0).filter((problem) => problem.startsWith('HTTP '));
    await row(page, 'demo').waitFor();

    // A text file: the exact reason under the add form; nothing saved, the list unchanged.
    const before = readFileSync(join(suite.app.dataDir, 'config.json'), 'utf8');
    await addSqlite(page, 'Notes', textPath);
    await expect.poll(() => text(page.locator('[data-error="connection-add"]'))).toBe(`${textPath} is not a SQLite database`);
    expect(readFileSync(join(suite.app.dataDir, 'config.json'), 'utf8')).toBe(before);
    expect(await page.locator('tr[data-connection-id]').count()).toBe(1);
    expect(refusals()).toEqual([`HTTP 400 for POST ${session.origin}/api/connections.add`]);

    // A name with a bidirectional control (it would reorder the text around it): refused, saying so.
    await addSqlite(page, 'Notes\u202Eseton', notesPath);
    await expect.poll(() => text(page.locator('[data-error="connection-add"]'))).toBe(
      'name must not contain control characters, line separators or bidirectional controls (it holds U+202E)',
    );
    expect(readFileSync(join(suite.app.dataDir, 'config.json'), 'utf8')).toBe(before);
    expect(refusals()).toEqual([`HTTP 400 for POST ${session.origin}/api/connections.add`]);

    await page.locator('#connection-form').getByLabel('Name').fill('Notes');
    await page.locator('#connection-form').getByLabel('File path').fill(notesPath);
    await page.locator('#connection-form').getByRole('button', { name: 'Add connection' }).click();
    await row(page, 'notes').waitFor();
    expect(await text(page.locator('[data-error="connection-add"]'))).toBe('');

    // Edit: a target that is not a database is refused with its reason; the form keeps what was typed.
    await row(page, 'notes').getByRole('button', { name: 'Edit' }).click();
    const edit = page.locator('#connection-edit-form');
    expect(await text(edit.locator('h3'))).toBe('Change “Notes”');
    expect(await edit.getByLabel('Name').inputValue()).toBe('Notes');
    expect(await edit.getByLabel('File path').inputValue()).toBe(notesPath);
    await edit.getByLabel('Name').fill('Field notes');
    await edit.getByLabel('File path').fill(textPath);
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => text(edit.locator('[data-error="connection-edit"]'))).toBe(`Not saved: ${textPath} is not a SQLite database`);
    expect(await edit.getByLabel('Name').inputValue()).toBe('Field notes');
    expect(await edit.getByLabel('File path').inputValue()).toBe(textPath);
    expect(savedIds().find((c) => c.id === 'notes')).toMatchObject({ name: 'Notes', path: notesPath });

    // A name another connection has is refused too, with the CLI's words.
    await edit.getByLabel('Name').fill('demo bookshop');
    await edit.getByLabel('File path').fill(notesPath);
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => text(edit.locator('[data-error="connection-edit"]'))).toBe(
      'Not saved: the name "demo bookshop" is taken by connection "demo" (names must be unique)',
    );

    // So is a name with a control character, saying so.
    await edit.getByLabel('Name').fill('Field\u2066notes');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => text(edit.locator('[data-error="connection-edit"]'))).toBe(
      'Not saved: name must not contain control characters, line separators or bidirectional controls (it holds U+2066)',
    );
    expect(savedIds().find((c) => c.id === 'notes')).toMatchObject({ name: 'Notes', path: notesPath });
    expect(refusals()).toEqual(Array.from({ length: 3 }, () => `HTTP 400 for POST ${session.origin}/api/connections.update`));

    // Rename: saved, the form closes, the row shows the new name.
    await edit.getByLabel('Name').fill('Field notes');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => edit.isHidden()).toBe(true);
    await expect.poll(() => text(row(page, 'notes').locator('[data-cell="name"]'))).toBe('Field notes');
    expect(savedIds().find((c) => c.id === 'notes')).toMatchObject({ name: 'Field notes', path: notesPath });

    // Test: the version and how long it took.
    await row(page, 'notes').getByRole('button', { name: 'Test' }).click();
    const result = row(page, 'notes').locator('[data-test-result]');
    await expect.poll(() => result.getAttribute('data-test-outcome')).toBe('ok');
    expect(await text(result)).toMatch(/^SQLite 3\.\d+\.\d+, \d+ ms$/);
    await screenshot(page, 'connections-manage.png');

    // A file gone since: Test shows exactly why.
    rmSync(notesPath);
    await row(page, 'notes').getByRole('button', { name: 'Test' }).click();
    await expect.poll(() => result.getAttribute('data-test-outcome')).toBe('failed');
    expect(await text(result)).toBe(`Test failed: ${notesPath} does not exist`);
    expect(refusals()).toEqual([`HTTP 400 for POST ${session.origin}/api/connections.test`]);

    // Remove asks in the page, naming the connection; Cancel keeps it.
    const dialog = page.locator('#connection-remove-dialog');
    await row(page, 'notes').getByRole('button', { name: 'Remove' }).click();
    await dialog.waitFor();
    expect(await text(dialog.locator('h3'))).toBe('Remove the connection “Field notes”?');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect(await row(page, 'notes').count()).toBe(1);
    expect(savedIds().map((c) => c.id)).toEqual(['demo', 'notes']);

    // Escape keeps it too; Remove removes it.
    await row(page, 'notes').getByRole('button', { name: 'Remove' }).click();
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect(savedIds().map((c) => c.id)).toEqual(['demo', 'notes']);

    await row(page, 'notes').getByRole('button', { name: 'Remove' }).click();
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => row(page, 'notes').count()).toBe(0);
    expect(savedIds().map((c) => c.id)).toEqual(['demo']);
  });
});
