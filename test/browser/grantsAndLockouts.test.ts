import { randomBytes } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { EXCHANGE } from '../../src/core/contract.js';
import { ErrorCode } from '../../src/core/errors.js';
import { challengeFor, createVerifier } from '../../src/pairing/pkce.js';
import { browserSuite, chromiumAvailable, openConsoleSession, screenshot } from '../helpers/browser.js';
import { exchange, expectToken, pairingLink, redeem, UUID } from '../helpers/pairing.js';
import { callTool, mintToken, type TestApp } from '../helpers/testApp.js';

/**
 * The console in real Chromium for what an approval granted, lockouts, and the per-token view
 * (docs/console.md): an approved sheet and the token list show the level, connections and expiry the
 * user chose, also after a reload and in a console opened afresh; an address locked out by failed
 * exchanges is shown with its count and until when, and cleared from the console; a token's row shows
 * its client, requests and refusals, and opens the activity screen filtered to it.
 */

const canRun = chromiumAvailable();
const unique = () => randomBytes(4).toString('hex');
const clientInfo = (name: string) => ({ 'io.modelcontextprotocol/clientInfo': { name, version: '1.0.0' } });
const DAY_MS = 86_400_000;

function openLink(app: TestApp, client: string, redirect: string) {
  const verifier = createVerifier();
  const opened = app.pairing.openLink(pairingLink({ client, redirect, scopes: 'fullAccess', challenge: challengeFor(verifier) }));
  if (!opened.ok) throw new Error(`the pairing link was refused: ${opened.reason}`);
  return { verifier, sheetId: opened.sheet.id };
}

const sheetCard = (page: Page, id: string) => page.locator(`article[data-sheet-id="${id}"]`);
const text = async (locator: Locator) => ((await locator.textContent()) ?? '').trim();

/** What the card shows as granted: its line, and each control. */
async function shownOnCard(card: Locator) {
  return {
    status: await card.getAttribute('data-status'),
    granted: await text(card.locator('[data-granted]')),
    level: await card.locator('input[data-level]:checked').getAttribute('value'),
    all: await card.locator('[data-all-connections]').isChecked(),
    demo: await card.locator('input[data-connection-choice="demo"]').isChecked(),
    expiry: await card.locator('select[data-expiry]').inputValue(),
  };
}

/** What the token list shows for one token. */
async function shownInList(page: Page, id: string) {
  const row = page.locator(`tr[data-token-id="${id}"]`);
  return {
    level: await text(row.locator('[data-cell="level"]')),
    connections: await text(row.locator('[data-cell="connections"]')),
    expires: await row.locator('[data-cell="expires"] time').getAttribute('datetime'),
  };
}

const GRANTED = {
  status: 'approved',
  granted: 'Granted: Read only, on Demo bookshop, expires after 7 days.',
  level: 'readOnly',
  all: false,
  demo: true,
  expiry: '7',
};

describe.runIf(canRun)('grants, lockouts and the per-token view in Chromium', () => {
  const suite = browserSuite();

  it('an approval that changes level, connections and expiry: the sheet and the token list show what was granted, after a reload and in a console opened afresh', async () => {
    const { page } = await suite.open();
    const client = `Granted client ${unique()}`;
    const redirect = `${suite.callbacks.origin}/granted/${unique()}`;
    const { verifier, sheetId } = openLink(suite.app, client, redirect);
    const card = sheetCard(page, sheetId);
    await card.waitFor();
    // Asked for: full access, and by default every connection for 30 days.
    expect(await card.locator('input[data-level="fullAccess"]').isChecked()).toBe(true);

    await card.locator('input[data-level="readOnly"]').check();
    await card.locator('[data-all-connections]').uncheck();
    await card.locator('input[data-connection-choice="demo"]').check();
    await card.locator('select[data-expiry]').selectOption('7');
    await card.getByRole('button', { name: 'Approve', exact: true }).click();

    const mine = () => suite.callbacks.received.filter((url) => url.pathname === new URL(redirect).pathname);
    await expect.poll(() => mine().length, { timeout: 5_000 }).toBe(1);
    const code = mine()[0]!.searchParams.get('code');
    expect(code).toMatch(UUID);
    const token = expectToken(await redeem(suite.app, { code: code!, verifier }));
    const record = suite.app.tokens.list().find((t) => t.prefix === token.slice(3, 11))!;
    expect(record).toMatchObject({ name: client, level: 'readOnly', connections: ['demo'] });
    expect(Date.parse(record.expiresAt!) - Date.parse(record.createdAt)).toBe(7 * DAY_MS);
    expect(suite.app.pairing.sheets().find((s) => s.id === sheetId)).toMatchObject({
      status: 'approved',
      requestedLevel: 'fullAccess',
      granted: { level: 'readOnly', connections: ['demo'], expiresInDays: 7, tokenId: record.id },
    });

    const expected = { level: 'Read only', connections: 'demo', expires: record.expiresAt };
    await expect.poll(() => shownOnCard(card), { timeout: 5_000 }).toEqual(GRANTED);
    await expect.poll(() => shownInList(page, record.id), { timeout: 5_000 }).toEqual(expected);

    await page.reload();
    await sheetCard(page, sheetId).waitFor();
    expect(await shownOnCard(sheetCard(page, sheetId))).toEqual(GRANTED);
    expect(await shownInList(page, record.id)).toEqual(expected);

    // A console opened later, with a fresh link, in a browser context of its own.
    const later = await openConsoleSession(suite.browser, suite.app);
    try {
      const again = sheetCard(later.page, sheetId);
      await again.waitFor();
      expect(await shownOnCard(again)).toEqual(GRANTED);
      expect(await shownInList(later.page, record.id)).toEqual(expected);
      later.expectClean();
    } finally {
      await later.close();
    }
  });

  it('an address locked out by failed exchanges: the console shows who and until when; Clear lets a valid exchange through', async () => {
    const { page } = await suite.open();
    // A real pairing, approved, whose code waits to be exchanged.
    const redirect = `${suite.callbacks.origin}/locked/${unique()}`;
    const { verifier, sheetId } = openLink(suite.app, `Locked client ${unique()}`, redirect);
    expect(suite.app.pairing.approve(sheetId)).toMatchObject({ ok: true });
    const mine = () => suite.callbacks.received.filter((url) => url.pathname === new URL(redirect).pathname);
    await expect.poll(() => mine().length, { timeout: 5_000 }).toBe(1);
    const code = mine()[0]!.searchParams.get('code')!;

    const before = Date.now();
    for (let i = 0; i < EXCHANGE.lockout.failures; i++) {
      expect((await exchange(suite.app, { code: `wrong-${i}`, code_verifier: createVerifier() })).status).toBe(404);
    }
    const refused = await redeem(suite.app, { code, verifier });
    expect([refused.status, refused.json?.error]).toEqual([429, 'too_many_attempts']);

    const row = page.locator('tr[data-lockout-id="exchange:127.0.0.1"]');
    await row.waitFor();
    expect(await row.getAttribute('data-locked')).toBe('true');
    expect(await text(row.locator('[data-cell="who"]'))).toBe('127.0.0.1');
    expect(await text(row.locator('[data-cell="limit"]'))).toBe('Failed pairing exchanges');
    expect(await text(row.locator('[data-cell="count"] [data-count]'))).toBe(String(EXCHANGE.lockout.failures));
    expect(await text(row.locator('[data-cell="until"]'))).toMatch(/^locked\s*Locked out until \S/);
    const until = Date.parse((await row.locator('[data-cell="until"] time').getAttribute('datetime'))!);
    expect(until).toBeGreaterThanOrEqual(before + EXCHANGE.lockout.lockoutSeconds * 1000 - 1000);
    expect(until).toBeLessThanOrEqual(Date.now() + EXCHANGE.lockout.lockoutSeconds * 1000 + 1000);
    expect(await page.locator('[data-empty="lockouts"]').isHidden()).toBe(true);
    await screenshot(page, 'console-lockouts.png');

    await row.getByRole('button', { name: 'Clear', exact: true }).click();
    await expect.poll(() => row.count(), { timeout: 5_000 }).toBe(0);
    expect(await page.locator('[data-empty="lockouts"]').isVisible()).toBe(true);
    expect(await page.locator('[data-action="clear-all-lockouts"]').isHidden()).toBe(true);

    // The same valid request, refused a moment ago, is served.
    expectToken(await redeem(suite.app, { code, verifier }));
    const cleared = suite.app.activity.list({ category: 'admin' }).filter((r) => r.action === 'lockout.cleared');
    expect(cleared).toHaveLength(1);
    expect(JSON.parse(cleared[0]!.detail!)).toEqual({ limit: 'exchange', who: '127.0.0.1' });
  });

  it("a token's row shows its client, requests and refusals; Activity filters the activity screen to it", async () => {
    const { page } = await suite.open();
    const minted = mintToken(suite.app, `Token view ${unique()}`, 'readOnly');
    const call = (client: string) =>
      callTool(suite.app, 'list_connections', {}, { headers: minted.headers, extraMeta: clientInfo(client) });
    expect((await call('Claude Desktop')).status).toBe(200);
    expect((await call('Zed')).status).toBe(200);
    // A write on a read-only token: refused, and counted as a refusal.
    const denied = await callTool(
      suite.app,
      'execute_query',
      { connection_id: 'demo', sql: 'UPDATE books SET title = title WHERE id = 1' },
      { headers: minted.headers, extraMeta: clientInfo('Zed') },
    );
    expect([denied.status, denied.json.error.code]).toEqual([403, ErrorCode.Forbidden]);

    const row = page.locator(`tr[data-token-id="${minted.id}"]`);
    await expect.poll(() => text(row.locator('[data-count="requests"]')), { timeout: 5_000 }).toBe('3');
    expect(await text(row.locator('[data-count="refusals"]'))).toBe('1 refused');
    expect(await text(row.locator('[data-cell="client"]'))).toBe('Zed');
    expect(await text(row.locator('[data-cell="last-used"]'))).not.toBe('Never');
    await screenshot(page, 'console-token-view.png');

    await row.getByRole('button', { name: 'Activity', exact: true }).click();
    expect(await page.locator('#activity-token').inputValue()).toBe(minted.id);
    const activityRows = page.locator('[data-list="activity"] > tr');
    await expect.poll(() => activityRows.count(), { timeout: 5_000 }).toBe(3);
    for (const tokenCell of await activityRows.locator('td:nth-child(2) .cell-sub').all()) {
      expect(await text(tokenCell)).toBe(`token ${minted.name}`);
    }
    expect(await activityRows.first().getAttribute('data-outcome')).toBe('denied');
  });
});
