import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { challengeFor, createVerifier } from '../../src/pairing/pkce.js';
import { browserSuite, chromiumAvailable } from '../helpers/browser.js';
import { expectToken, pairingLink, redeem } from '../helpers/pairing.js';

/**
 * Custom tools in the console, in real Chromium (issue 32): the section lists the tools tools.json
 * defines and each refused definition with its line and reason; its form defines a tool (refused with
 * the file's own checks, else written into the file) and removes one; the approval sheet offers the
 * tools, and a grant limited to one shows on the card and in the token list.
 */

const canRun = chromiumAvailable();

const TOOLS = `{
  "tools": [
    { "name": "demo_one", "description": "One.", "connection": "demo", "statement": "SELECT 1 AS one", "kind": "read" },
    { "name": "demo_bad", "description": "Unknown connection.", "connection": "nope", "statement": "SELECT 1", "kind": "read" }
  ]
}
`;

describe.runIf(canRun)('custom tools in the console (Chromium)', () => {
  const suite = browserSuite();

  it('lists the tools and the refused definitions, and a sheet limited to one tool grants only that', async () => {
    writeFileSync(join(suite.app.dataDir, 'tools.json'), TOOLS);
    await suite.app.customTools.reload();
    const { page } = await suite.open();
    const section = page.locator('#custom-tools');
    await expect.poll(() => section.locator('[data-custom-tool] code').allTextContents(), { timeout: 5_000 }).toEqual(['demo_one']);
    expect(await section.locator('[data-refusal]').allTextContents()).toEqual(['line 4: no saved connection has the id "nope"']);

    const verifier = createVerifier();
    const redirect = `${suite.callbacks.origin}/tools`;
    const opened = suite.app.pairing.openLink(pairingLink({ client: 'Narrow client', redirect, challenge: challengeFor(verifier) }));
    if (!opened.ok) throw new Error(opened.reason);
    const card = page.locator(`article[data-sheet-id="${opened.sheet.id}"]`);
    await card.waitFor();
    expect(await card.locator('[data-tools-picker]').isVisible()).toBe(true);
    await card.locator('[data-all-tools]').uncheck();
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    expect((await card.locator('[data-error]').textContent())?.trim()).toBe('Choose at least one tool, or tick “Every tool its level allows”.');
    await card.locator('input[data-tool-choice="demo_one"]').check();
    await card.getByRole('button', { name: 'Approve', exact: true }).click();

    const mine = () => suite.callbacks.received.filter((url) => url.pathname === '/tools');
    await expect.poll(() => mine().length, { timeout: 5_000 }).toBe(1);
    const token = expectToken(await redeem(suite.app, { code: mine()[0]!.searchParams.get('code')!, verifier }));
    const record = suite.app.tokens.list().find((t) => t.prefix === token.slice(3, 11))!;
    expect(record.tools).toEqual(['demo_one']);
    await expect.poll(async () => (await card.locator('[data-granted]').textContent())?.trim(), { timeout: 5_000 }).toBe(
      'Granted: Read and write, on all connections, only the tools demo_one, expires after 30 days.',
    );
    const row = page.locator(`tr[data-token-id="${record.id}"]`);
    await expect.poll(async () => (await row.locator('[data-cell="tools"]').textContent())?.trim(), { timeout: 5_000 }).toBe('Only demo_one');

    // The token form offers the same choice.
    const form = page.locator('#token-form');
    await form.getByLabel('Name').fill('form narrow');
    await form.locator('[data-all-tools]').uncheck();
    await form.locator('input[data-tool-choice="demo_one"]').check();
    await form.getByRole('button', { name: 'Create token' }).click();
    await expect.poll(() => suite.app.tokens.list().find((t) => t.name === 'form narrow')?.tools, { timeout: 5_000 }).toEqual(['demo_one']);
  });

  it('defines a tool through the form, after the same checks as the file, and removes it', async () => {
    const session = await suite.open();
    const { page } = session;
    const form = page.locator('#custom-tool-form');
    await form.getByLabel('Name').fill('order_count');
    await form.getByLabel('Connection').selectOption('demo');
    await form.getByLabel('Description (what the model reads)').fill('How many orders have this status.');
    await form.getByLabel('Statement').fill("UPDATE orders SET status = 'paid' WHERE status = :status");
    await form.getByLabel('Parameters (JSON list, optional)').fill('[{ "name": "status", "type": "string", "enum": ["pending", "paid"] }]');
    await form.getByRole('button', { name: 'Save tool' }).click();
    await expect.poll(async () => (await form.locator('[data-error]').textContent())?.trim(), { timeout: 5_000 }).toBe(
      'kind is read, but the statement is classified write: UPDATE changes data',
    );
    expect(await form.getByLabel('Name').inputValue()).toBe('order_count');
    // The refusal is the command's HTTP 400, which the page shows; nothing else went wrong.
    expect(session.problems.splice(0).filter((problem) => problem.startsWith('HTTP '))).toEqual([`HTTP 400 for POST ${session.origin}/api/customTools.define`]);

    await form.getByLabel('Statement').fill('SELECT count(*) AS n FROM orders WHERE status = :status');
    await form.getByRole('button', { name: 'Save tool' }).click();
    const item = page.locator('#custom-tools [data-custom-tool="order_count"]');
    await item.waitFor({ timeout: 5_000 });
    expect(JSON.parse(readFileSync(join(suite.app.dataDir, 'tools.json'), 'utf8')).tools.map((t: { name: string }) => t.name)).toEqual(['demo_one', 'demo_bad', 'order_count']);
    expect(await form.getByLabel('Name').inputValue()).toBe('');

    page.once('dialog', (dialog) => void dialog.accept());
    await item.getByRole('button', { name: 'Remove' }).click();
    await item.waitFor({ state: 'detached', timeout: 5_000 });
    expect(JSON.parse(readFileSync(join(suite.app.dataDir, 'tools.json'), 'utf8')).tools.map((t: { name: string }) => t.name)).toEqual(['demo_one', 'demo_bad']);
  });
});
