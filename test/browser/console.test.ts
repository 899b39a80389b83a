import { randomBytes } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { APPLICATION } from '../../src/core/contract.js';
import { challengeFor, createVerifier } from '../../src/pairing/pkce.js';
import { browserSuite, chromiumAvailable, markPage, type PageGlobals, postFromPage, screenshot, stillSamePage, tabTo } from '../helpers/browser.js';
import { callTool, mintToken, mirroredHeaders, modernMeta, readUntil, sseFrames, startTestApp, type TestApp } from '../helpers/testApp.js';
import { DAY_MS, expectToken, pairingLink, redeem, UUID } from '../helpers/pairing.js';

/**
 * The console page in real headless Chromium (docs/console.md, README "The console"): approval sheets
 * answered by clicking and from the keyboard, the five-minute countdown on the application's clock, write
 * dialogs with their full statement, tokens created and revoked. Every test also checks that the page
 * asked nothing of any other origin and reported no error.
 */

const canRun = chromiumAvailable();

const SLOW_SQL =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 500000000) SELECT count(*) FROM c';
const unique = () => randomBytes(4).toString('hex');
const clientInfo = (name: string) => ({ 'io.modelcontextprotocol/clientInfo': { name, version: '1.0.0' } });

/** Opens a pairing deep link in the app (as the operating system would hand it over); returns the client's side. */
function openLink(app: TestApp, options: { client: string; redirect: string; scopes?: string }) {
  const verifier = createVerifier();
  const opened = app.pairing.openLink(
    pairingLink({ client: options.client, redirect: options.redirect, scopes: options.scopes ?? 'readWrite', challenge: challengeFor(verifier) }),
  );
  if (!opened.ok) throw new Error(`the pairing link was refused: ${opened.reason}`);
  return { verifier, sheetId: opened.sheet.id };
}

const sheetCard = (page: Page, id: string) => page.locator(`article[data-sheet-id="${id}"]`);
const approveButton = (card: Locator) => card.getByRole('button', { name: 'Approve', exact: true });
const attribute = (locator: Locator, name: string) => () => locator.getAttribute(name);

describe.runIf(canRun)('the console page in Chromium', () => {
  const suite = browserSuite();

  const open = () => suite.open();

  it('a pairing sheet appears live; the level and expiry are changed and Approve clicked; the client gets a code that exchanges for that token', async () => {
    const { page } = await open();
    await markPage(page);
    const client = `Browser client ${unique()}`;
    const redirect = `${suite.callbacks.origin}/callback/${unique()}`;
    const { verifier, sheetId } = openLink(suite.app, { client, redirect, scopes: 'readWrite' });

    // Live, through the event stream: no reload.
    const card = sheetCard(page, sheetId);
    await card.waitFor();
    expect(await stillSamePage(page)).toBe(true);
    expect(await card.getAttribute('data-status')).toBe('awaitingApproval');
    expect(await card.locator('[data-client-name]').textContent()).toBe(client);
    expect(await card.locator('[data-redirect]').textContent()).toBe(redirect);
    expect(await card.locator('[data-countdown]').textContent()).toMatch(/^[45]:\d\d left$/);
    // The requested level is where the sheet starts; all connections and 30 days by default.
    expect(await card.locator('input[data-level="readWrite"]').isChecked()).toBe(true);
    expect(await card.locator('[data-all-connections]').isChecked()).toBe(true);
    expect(await card.locator('select[data-expiry]').inputValue()).toBe('30');
    await screenshot(page, 'console-approval.png');

    await card.locator('input[data-level="readOnly"]').check();
    await card.locator('select[data-expiry]').selectOption('7');
    await approveButton(card).click();

    // The client's loopback callback receives the one-time code.
    const mine = () => suite.callbacks.received.filter((url) => url.pathname === new URL(redirect).pathname);
    await expect.poll(() => mine().length, { timeout: 5_000 }).toBe(1);
    const callback = mine()[0]!;
    const code = callback.searchParams.get('code');
    expect(code).toMatch(UUID);
    expect(callback.searchParams.get('state')).toBe('s1');

    // The code and the verifier buy the token the user chose: read only, seven days.
    const token = expectToken(await redeem(suite.app, { code: code!, verifier }));
    const record = suite.app.tokens.list().find((t) => t.prefix === token.slice(3, 11));
    expect(record).toMatchObject({ name: client, level: 'readOnly', connections: 'all' });
    expect(Date.parse(record!.expiresAt!) - Date.parse(record!.createdAt)).toBe(7 * DAY_MS);

    // The card tells how it ended, and cannot be answered again.
    await expect.poll(attribute(card, 'data-status')).toBe('approved');
    await expect.poll(() => card.locator('[data-outcome]').isVisible()).toBe(true);
    expect(await card.locator('[data-outcome]').textContent()).toMatch(/^Approved\./);
    expect(await approveButton(card).isDisabled()).toBe(true);
    expect(await card.getByRole('button', { name: 'Deny', exact: true }).isDisabled()).toBe(true);
    expect(await stillSamePage(page)).toBe(true);
  });

  it('the countdown follows the application clock: five simulated minutes later the sheet is expired and Approve disabled, without a reload', async () => {
    const clock = new SimulatedClock();
    clock.set(Date.now());
    const timed = await startTestApp({ clock, deliver: () => Promise.resolve() });
    try {
      const session = await suite.open(timed);
      const { page } = session;
      await markPage(page);
      const { sheetId } = openLink(timed, { client: `Timed client ${unique()}`, redirect: `${suite.callbacks.origin}/timed` });
      // The console hears of the new sheet once the change has settled, on the application's clock.
      clock.increment(APPLICATION.changeSettleMs);
      const card = sheetCard(page, sheetId);
      await card.waitFor();
      expect(await card.locator('[data-countdown]').textContent()).toMatch(/^(5:00|4:5\d) left$/);
      expect(await card.getAttribute('data-status')).toBe('awaitingApproval');
      expect(await approveButton(card).isEnabled()).toBe(true);

      clock.increment(5 * 60_000);
      clock.increment(APPLICATION.changeSettleMs);

      await expect.poll(attribute(card, 'data-status'), { timeout: 5_000 }).toBe('expired');
      await expect.poll(() => approveButton(card).isDisabled()).toBe(true);
      expect(await card.getByRole('button', { name: 'Deny', exact: true }).isDisabled()).toBe(true);
      expect(await card.locator('[data-countdown]').textContent()).toBe('Expired');
      expect(await card.locator('[data-outcome]').textContent()).toMatch(/five minutes have passed/);
      expect(timed.pairing.sheets().find((s) => s.id === sheetId)?.status).toBe('expired');
      expect(await stillSamePage(page)).toBe(true);
    } finally {
      await suite.closeSession();
      await timed.dispose();
    }
  });

  it('a write waits on a dialog showing the whole statement (over 500 characters); Approve runs it', async () => {
    const { page } = await open();
    const writer = mintToken(suite.app, `Dialog writer ${unique()}`, 'readWrite');
    const marker = `Browser dialog ${unique()}`;
    const sql = [
      'INSERT INTO genres (name)',
      `VALUES ('${marker}' ||`,
      ...Array.from({ length: 8 }, (_, i) => `  ' / line ${i + 1}: a long statement must be shown in full, every character of it' ||`),
      "  ' / the end')",
    ].join('\n');
    expect(sql.length).toBeGreaterThan(500);

    // A client without elicitation: the request waits on the console's dialog.
    const pending = callTool(suite.app, 'execute_query', { connection_id: 'demo', sql }, { headers: writer.headers, extraMeta: clientInfo('Browser writer') });
    const card = page.locator('article[data-dialog-id]', { has: page.locator('pre[data-statement]', { hasText: marker }) });
    await card.waitFor({ timeout: 5_000 });
    const pre = card.locator('pre[data-statement]');
    expect(await pre.textContent()).toBe(sql);
    // Nothing of it is cut off: whatever does not fit can be scrolled to.
    const box = await pre.evaluate((el) => {
      const style = (globalThis as unknown as PageGlobals).getComputedStyle(el);
      return {
        overflows: el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1,
        scrollable: [style.overflowX, style.overflowY].every((o) => o === 'auto' || o === 'scroll'),
        ellipsis: style.textOverflow === 'ellipsis',
      };
    });
    expect(box.ellipsis).toBe(false);
    if (box.overflows) expect(box.scrollable).toBe(true);
    expect(await card.locator('[data-client]').textContent()).toBe('Browser writer');
    expect(await card.locator('[data-statement-kind]').textContent()).toBe('write');
    await screenshot(page, 'console-dialog-long.png');

    await approveButton(card).click();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.json.result.isError).toBe(false);
    expect(res.json.result.structuredContent).toMatchObject({ statement_kind: 'write', rows_affected: 1 });
    // Answered: the dialog leaves the page.
    await expect.poll(() => card.count(), { timeout: 5_000 }).toBe(0);
  });

  it('Create token shows the plaintext once, with Copy; the token is in the list and in the store as chosen', async () => {
    const { page, context, origin } = await open();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const name = `Browser token ${unique()}`;
    await page.locator('#token-name').fill(name);
    await page.locator('#token-level').selectOption('readWrite');
    await page.locator('#token-expiry').selectOption('90');
    await page.getByRole('button', { name: 'Create token' }).click();

    const box = page.locator('[data-token-secret]');
    await box.waitFor();
    const plaintext = (await box.locator('[data-token-plaintext]').textContent()) ?? '';
    expect(plaintext).toMatch(/^sl_[A-Za-z0-9_-]{43}$/);
    const record = suite.app.tokens.list().find((t) => t.prefix === plaintext.slice(3, 11));
    expect(record).toMatchObject({ name, level: 'readWrite', connections: 'all' });
    expect(Date.parse(record!.expiresAt!) - Date.parse(record!.createdAt)).toBe(90 * DAY_MS);
    const row = page.locator(`tr[data-token-id="${record!.id}"]`);
    await expect.poll(attribute(row, 'data-status'), { timeout: 5_000 }).toBe('active');
    await screenshot(page, 'console-tokens.png');

    await box.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => box.locator('[data-copy-status]').textContent()).toBe('Copied to the clipboard.');
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).navigator.clipboard.readText())).toBe(plaintext);

    // Shown once: hidden, it is gone from the page, and a reload does not bring it back.
    await box.getByRole('button', { name: 'Done, hide it' }).click();
    expect(await box.isHidden()).toBe(true);
    expect(await page.content()).not.toContain(plaintext);
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(plaintext.slice(3));
  });

  it('Create token refuses a name with a bidirectional control, saying so; no token is made', async () => {
    const session = await open();
    const { page } = session;
    const before = suite.app.tokens.list().length;
    await page.locator('#token-name').fill(`Evil\u202Etoken ${unique()}`);
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect
      .poll(() => page.locator('[data-error="token-create"]').textContent())
      .toBe('name must not contain control characters, line separators or bidirectional controls (it holds U+202E)');
    expect(await page.locator('[data-token-secret]').isHidden()).toBe(true);
    expect(suite.app.tokens.list().length).toBe(before);
    expect(session.problems.splice(0)).toEqual([
      `HTTP 400 for POST ${session.origin}/api/tokens.create`,
      `${session.origin}/: console.error Failed to load resource: the server responded with a status of 400 (Bad Request)`,
    ]);
  });

  it("Revoke (confirmed) ends the token's running slow query with -33002; the row then shows revoked", async () => {
    const { page } = await open();
    // Made through the console's own command, as a user would: the page hears of it and shows its row.
    const name = `Slow reader ${unique()}`;
    const created = (await postFromPage(page, 'tokens.create', { name, level: 'readOnly' })) as { id: string; plaintext: string };
    const token = { id: created.id, name, headers: { authorization: `Bearer ${created.plaintext}` } };
    const row = page.locator(`tr[data-token-id="${token.id}"]`);
    await expect.poll(attribute(row, 'data-status'), { timeout: 5_000 }).toBe('active');

    const params = { name: 'execute_query', arguments: { connection_id: 'demo', sql: SLOW_SQL } };
    const response = await fetch(suite.app.url, {
      method: 'POST',
      headers: { ...mirroredHeaders('tools/call', params), ...token.headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { ...params, _meta: modernMeta({ progressToken: 1 }) } }),
    });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    let text = await readUntil(reader, '"progress":0.3');

    const confirms: string[] = [];
    page.on('dialog', (dialog) => {
      confirms.push(dialog.message());
      void dialog.accept();
    });
    await row.getByRole('button', { name: 'Revoke' }).click();
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += chunk.value;
    }
    expect(confirms).toHaveLength(1);
    expect(confirms[0]).toContain(token.name);
    const final = sseFrames(text).data.find((frame) => frame?.id === 'slow');
    expect(final).toMatchObject({ jsonrpc: '2.0', id: 'slow', error: { code: -33002 } });
    expect(final).not.toHaveProperty('result');

    await expect.poll(attribute(row, 'data-status'), { timeout: 5_000 }).toBe('revoked');
    expect(await row.getByRole('button', { name: 'Revoke' }).count()).toBe(0);
    expect(suite.app.tokens.get(token.id)?.revokedAt).toEqual(expect.any(String));
  });

  it('is keyboard operable: Tab reaches a sheet’s Approve, Space and Enter press it', async () => {
    const { page } = await open();
    const first = openLink(suite.app, { client: `Keyboard first ${unique()}`, redirect: `${suite.callbacks.origin}/keys/1` });
    const second = openLink(suite.app, { client: `Keyboard second ${unique()}`, redirect: `${suite.callbacks.origin}/keys/2` });
    const firstCard = sheetCard(page, first.sheetId);
    const secondCard = sheetCard(page, second.sheetId);
    await firstCard.waitFor();
    await secondCard.waitFor();

    // From the top of the page, Tab alone gets to each sheet's Approve.
    await page.locator('body').focus();
    await tabTo(page, approveButton(firstCard));
    await tabTo(page, approveButton(secondCard));
    await page.keyboard.press('Space');
    await expect.poll(attribute(secondCard, 'data-status'), { timeout: 5_000 }).toBe('approved');

    await tabTo(page, approveButton(firstCard), 'Shift+Tab');
    await page.keyboard.press('Enter');
    await expect.poll(attribute(firstCard, 'data-status'), { timeout: 5_000 }).toBe('approved');

    const statuses = suite.app.pairing.sheets().filter((s) => s.id === first.sheetId || s.id === second.sheetId).map((s) => s.status);
    expect(statuses).toEqual(['approved', 'approved']);
    await expect
      .poll(() => suite.callbacks.received.filter((url) => url.pathname.startsWith('/keys/') && url.searchParams.has('code')).length)
      .toBe(2);
  });

  it('follows the dark appearance', async () => {
    const { page } = await open();
    openLink(suite.app, { client: `Dark client ${unique()}`, redirect: `${suite.callbacks.origin}/dark` });
    await page.locator('article[data-sheet-id][data-status="awaitingApproval"]').first().waitFor();
    const background = () =>
      page.evaluate(() => {
        const web = globalThis as unknown as PageGlobals;
        return web.getComputedStyle(web.document.body).backgroundColor;
      });
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await background();
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await background();
    expect(dark).not.toBe(light);
    await screenshot(page, 'console-dark.png');
  });
});
