import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/db/connections/savedConnections.js';
import { browserSuite, chromiumAvailable, screenshot } from '../helpers/browser.js';
import { expectToolError } from '../helpers/rpcAssertions.js';
import { callTool, mintToken } from '../helpers/testApp.js';

/**
 * A write's dialog in real Chromium shows exactly what will run (docs/console.md, "What a dialog
 * shows"): every line numbered, every invisible or control character as a marked escape, every bound
 * value with its type, the connection's engine and database, the classification and its reason, the
 * token's name and level, the client's name marked self-declared, and the rows it would change.
 */

const canRun = chromiumAvailable();
const unique = () => randomBytes(4).toString('hex');

describe.runIf(canRun)('the statement dialog in Chromium', () => {
  const suite = browserSuite();

  it('shows numbered lines, escapes for a bidi override and a zero-width space, typed values, and who asks', async () => {
    const { page } = await suite.open();
    const tokenName = `Dialog token ${unique()}`;
    const writer = mintToken(suite.app, tokenName, 'readWrite');
    const client = `Dialog client ${unique()}`;
    const sql = [
      'UPDATE genres',
      'SET name = ? -- rename \u202Eeman neddih',
      "WHERE name = 'Sci\u200Bfi' OR (id > ? AND id < ? AND ? IS NULL AND ? = 1)",
    ].join('\n');
    const params = ['Fantasy\u200B', 1000, 2.5, null, true];

    const pending = callTool(suite.app, 'execute_query', { connection_id: 'demo', sql, params }, {
      headers: writer.headers,
      extraMeta: { 'io.modelcontextprotocol/clientInfo': { name: client, version: '1.0.0' } },
    });
    const card = page.locator('article[data-dialog-id]', { has: page.locator('[data-client]', { hasText: client }) });
    await card.waitFor({ timeout: 5_000 });

    // Every line, numbered; the invisible characters only as marked escapes, never as themselves.
    const lines = card.locator('pre[data-statement] .line');
    expect(await lines.evaluateAll((els) => els.map((el) => [el.getAttribute('data-line'), el.textContent]))).toEqual([
      ['1', 'UPDATE genres\n'],
      ['2', 'SET name = ? -- rename ⟨U+202E⟩eman neddih\n'],
      ['3', "WHERE name = 'Sci⟨U+200B⟩fi' OR (id > ? AND id < ? AND ? IS NULL AND ? = 1)"],
    ]);
    expect(await card.locator('pre[data-statement] .escape').allTextContents()).toEqual(['⟨U+202E⟩', '⟨U+200B⟩']);
    const pageText = await card.evaluate((el) => el.textContent ?? '');
    expect(pageText).not.toMatch(/[\u202e\u200b]/);
    expect(await card.locator('.statement-label').first().textContent()).toBe(`Full statement (3 lines, ${sql.length} characters, nothing left out)`);
    expect(await card.locator('[data-escapes-note]').textContent()).toBe('It contains 2 invisible or control characters, each shown as ⟨U+code⟩ and marked.');

    // Each bound value with its type (SQLite binds a boolean as the integer 1, and that is what is shown).
    const rows = card.locator('table[data-params] tbody tr');
    expect(await rows.evaluateAll((els) => els.map((tr) => [...tr.children].map((cell) => cell.textContent)))).toEqual([
      ['?1', 'string', '"Fantasy⟨U+200B⟩"'],
      ['?2', 'integer', '1000'],
      ['?3', 'number', '2.5'],
      ['?4', 'null', 'null'],
      ['?5', 'integer', '1'],
    ]);
    expect(await card.locator('table[data-params] .escape').allTextContents()).toEqual(['⟨U+200B⟩']);

    // Who asks, where, and why it is a write.
    expect(await card.locator('[data-client]').textContent()).toBe(client);
    expect(await card.locator('[data-self-declared]').textContent()).toBe('self-declared');
    expect(await card.locator('[data-token]').textContent()).toBe(`${tokenName} (Read and write)`);
    const demo = readConfig(suite.app.dataDir)?.connections.find((c) => c.id === 'demo');
    expect(demo?.engine).toBe('sqlite');
    expect(await card.locator('[data-database]').textContent()).toBe(`SQLite: ${demo?.engine === 'sqlite' ? demo.path : ''}`);
    expect(await card.locator('[data-connection]').textContent()).toBe('Demo bookshop (demo)');
    expect(await card.locator('[data-statement-kind]').textContent()).toBe('write');
    expect(await card.locator('[data-statement-reason]').textContent()).toBe('UPDATE changes data');
    // No genre has that name or such an id: tried in a transaction that was rolled back, before anyone approves.
    expect(await card.locator('[data-effect]').textContent()).toBe('0 rows will change (tried, then rolled back)');
    expect(await card.locator('[data-changes-box]').isHidden()).toBe(true);

    // The README's picture of a dialog (SLUICE_SCREENSHOTS=docs/screenshots refreshes it).
    await screenshot(page, 'console-dialog.png');

    await card.getByRole('button', { name: 'Deny', exact: true }).click();
    expect(expectToolError(await pending, 'denied')).toBe('denied: the user denied the statement in Sluice');
    await expect.poll(() => card.count(), { timeout: 5_000 }).toBe(0);
  });

  it('shows the rows a tried write would change, before and after, its changed cells marked and hidden characters made visible', async () => {
    const { page } = await suite.open();
    const writer = mintToken(suite.app, `Changes token ${unique()}`, 'readWrite');
    const client = `Changes client ${unique()}`;
    const pending = callTool(suite.app, 'execute_query', { connection_id: 'demo', sql: 'UPDATE genres SET name = name || ? WHERE id <= 2', params: ['\u202E\u200B\u{E0041}\u001b!'] }, {
      headers: writer.headers,
      extraMeta: { 'io.modelcontextprotocol/clientInfo': { name: client, version: '1.0.0' } },
    });
    const card = page.locator('article[data-dialog-id]', { has: page.locator('[data-client]', { hasText: client }) });
    await card.waitFor({ timeout: 5_000 });

    expect(await card.locator('[data-effect]').textContent()).toBe('2 rows will change (tried, then rolled back)');
    const table = card.locator('table[data-changes]');
    expect(await table.locator('thead th').allTextContents()).toEqual(['id', 'name']);
    const rows = await table.locator('tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [tr.getAttribute('data-change'), ...[...tr.querySelectorAll('td')].map((td) => `${td.hasAttribute('data-changed') ? '*' : ''}${td.querySelector('code')?.textContent}`)]),
    );
    expect(rows).toHaveLength(4);
    expect(rows.map((row) => row.slice(0, 2))).toEqual([
      ['before', '1'],
      ['after', '1'],
      ['before', '2'],
      ['after', '2'],
    ]);
    // Only the name changes, and its bidi override, zero-width space, tag character and ESC show as marked escapes, never as themselves.
    for (const [i, row] of rows.entries()) expect(row[2]?.startsWith(i % 2 === 1 ? '*"' : '"')).toBe(true);
    expect(rows[1]?.[2]).toBe(`*${rows[0]?.[2]?.slice(0, -1)}⟨U+202E⟩⟨U+200B⟩⟨U+E0041⟩⟨U+001B⟩!"`);
    const escaped = ['⟨U+202E⟩', '⟨U+200B⟩', '⟨U+E0041⟩', '⟨U+001B⟩'];
    expect(await table.locator('[data-changed] .escape').allTextContents()).toEqual([...escaped, ...escaped]);
    const shown = await table.evaluate((el) => el.textContent ?? '');
    expect(['\u202e', '\u200b', '\u{E0041}', '\u001b'].filter((c) => shown.includes(c))).toEqual([]);
    // docs/console.md's picture of the table (SLUICE_SCREENSHOTS=docs/screenshots refreshes it).
    await screenshot(page, 'console-dialog-changes.png');

    await card.getByRole('button', { name: 'Deny', exact: true }).click();
    expect(expectToolError(await pending, 'denied')).toBe('denied: the user denied the statement in Sluice');
  });
});
