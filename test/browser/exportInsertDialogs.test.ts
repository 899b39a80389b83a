import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INSERTS } from '../../src/core/contract.js';
import { browserSuite, chromiumAvailable } from '../helpers/browser.js';
import { expectToolError } from '../helpers/rpcAssertions.js';
import { callTool, mintToken } from '../helpers/testApp.js';

/**
 * The dialogs of export_data and insert_rows in real Chromium: the file an export writes (and that it
 * replaces one), and the rows an insert adds as a table, the first of them, then how many more.
 */

const canRun = chromiumAvailable();
const unique = () => randomBytes(4).toString('hex');

describe.runIf(canRun)('the export and insert dialogs in Chromium', () => {
  const suite = browserSuite();

  /** The card of the dialog asked by `client`, once it shows. */
  async function cardOf(page: Awaited<ReturnType<typeof suite.open>>['page'], client: string) {
    const card = page.locator('article[data-dialog-id]', { has: page.locator('[data-client]', { hasText: client }) });
    await card.waitFor({ timeout: 5_000 });
    return card;
  }
  const asClient = (client: string) => ({ 'io.modelcontextprotocol/clientInfo': { name: client, version: '1.0.0' } });

  it('an export shows the file it replaces, with its invisible characters escaped; denied, nothing is written', async () => {
    const { page } = await suite.open();
    const dir = mkdtempSync(join(tmpdir(), 'sluice-dialog-export-'));
    const path = join(dir, 'genres\u200B.csv');
    writeFileSync(path, 'old');
    const client = `Export client ${unique()}`;
    const headers = mintToken(suite.app, `Export token ${unique()}`, 'readWrite').headers;
    const pending = callTool(suite.app, 'export_data', { connection_id: 'demo', sql: 'SELECT id, name FROM genres', format: 'csv', path, overwrite: true }, { headers, extraMeta: asClient(client) });
    const card = await cardOf(page, client);
    expect(await card.locator('[data-destination]').textContent()).toBe(`CSV, replacing the file ${join(dir, 'genres⟨U+200B⟩.csv')} replaces`);
    expect(await card.locator('[data-destination-path] .escape').allTextContents()).toEqual(['⟨U+200B⟩']);
    expect(await card.locator('[data-statement-kind]').textContent()).toBe('read');
    expect(await card.locator('[data-rows-box]').isHidden()).toBe(true);
    await card.getByRole('button', { name: 'Deny', exact: true }).click();
    expect(expectToolError(await pending, 'denied')).toBe('denied: the user denied the statement in Sluice');
    expect(readdirSync(dir)).toEqual(['genres\u200B.csv']);
    rmSync(dir, { recursive: true, force: true });
  });

  it(`an insert shows its rows as a table, the first ${INSERTS.shownRows}, then how many more`, async () => {
    const { page } = await suite.open();
    const client = `Insert client ${unique()}`;
    const headers = mintToken(suite.app, `Insert token ${unique()}`, 'readWrite').headers;
    const rows = Array.from({ length: INSERTS.shownRows + 2 }, (_, i) => ({ name: i === 0 ? 'Sci\u200Bfi' : `Genre ${i}` }));
    const pending = callTool(suite.app, 'insert_rows', { connection_id: 'demo', table: 'genres', rows }, { headers, extraMeta: asClient(client) });
    const card = await cardOf(page, client);
    expect(await card.locator('[data-rows-label]').textContent()).toBe(`Rows to insert into main.genres (${rows.length})`);
    const table = card.locator('table[data-rows]');
    expect(await table.locator('thead th').allTextContents()).toEqual(['name']);
    const cells = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.textContent));
    expect(cells).toHaveLength(INSERTS.shownRows);
    expect(cells.slice(0, 2)).toEqual(['"Sci⟨U+200B⟩fi"', '"Genre 1"']);
    expect(await card.locator('[data-rows-more]').textContent()).toBe('and 2 more rows');
    expect(await card.locator('[data-params]').textContent()).toBe('The cells of the rows above, row by row.');
    expect(await card.locator('[data-destination]').isHidden()).toBe(true);
    await card.getByRole('button', { name: 'Deny', exact: true }).click();
    expect(expectToolError(await pending, 'denied')).toBe('denied: the user denied the statement in Sluice');
  });
});
