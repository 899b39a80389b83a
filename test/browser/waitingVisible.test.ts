import { randomBytes } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { APPLICATION } from '../../src/core/contract.js';
import { NOTICE_TITLE } from '../../src/runtime/approvalNotices.js';
import { browserSuite, chromiumAvailable } from '../helpers/browser.js';
import { EventStream } from '../helpers/eventStream.js';
import { pairingLink } from '../helpers/pairing.js';
import { recordingNotifier } from '../helpers/recordingNotifier.js';
import { SteppingClock } from '../helpers/steppingClock.js';
import { mintToken, mirroredHeaders, modernMeta, type Minted, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * Issue 17, "Waiting is visible", in real headless Chromium: the console's tab title counts the approvals
 * that wait (pairing sheets and write dialogs), and a client that sent a progress token hears of its
 * write's wait every `APPLICATION.approvalProgressMs` until the person at the console approves it.
 */

const canRun = chromiumAvailable();
const unique = () => randomBytes(4).toString('hex');
const STEP = APPLICATION.approvalProgressMs;
const SETTLE = APPLICATION.changeSettleMs;

/** `execute_query` from a client without elicitation: the write waits on a dialog in Sluice. */
function startWrite(app: TestApp, token: Minted, sql: string, progressToken?: string) {
  const params = { name: 'execute_query', arguments: { connection_id: 'demo', sql } };
  const meta = modernMeta({
    'io.modelcontextprotocol/clientInfo': { name: 'Waiting writer', version: '1.0.0' },
    ...(progressToken !== undefined ? { progressToken } : {}),
  });
  return fetch(app.url, {
    method: 'POST',
    headers: { ...mirroredHeaders('tools/call', params), ...token.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'write', method: 'tools/call', params: { ...params, _meta: meta } }),
  });
}

function openSheet(app: TestApp, client: string): string {
  const opened = app.pairing.openLink(pairingLink({ client, redirect: 'http://127.0.0.1:9/cb' }));
  if (!opened.ok) throw new Error(`the pairing link was refused: ${opened.reason}`);
  return opened.sheet.id;
}

const dialogCard = (page: Page, marker: string) =>
  page.locator('article[data-dialog-id]', { has: page.locator('pre[data-statement]', { hasText: marker }) });
const button = (card: Locator, name: 'Approve' | 'Deny') => card.getByRole('button', { name, exact: true });

describe.runIf(canRun)('waiting is visible (Chromium)', () => {
  const suite = browserSuite();

  it('the tab title counts what waits: (1) for a sheet, (2) with a write dialog, back to plain as they are answered', async () => {
    const { page } = await suite.open();
    const title = () => page.title();
    expect(await title()).toBe('Sluice console');

    const sheetId = openSheet(suite.app, `Title client ${unique()}`);
    await expect.poll(title, { timeout: 5_000 }).toBe('(1) Sluice console');

    const writer = mintToken(suite.app, `Title writer ${unique()}`);
    const marker = `Title dialog ${unique()}`;
    const pending = startWrite(suite.app, writer, `INSERT INTO genres (name) VALUES ('${marker}')`);
    await expect.poll(title, { timeout: 5_000 }).toBe('(2) Sluice console');

    await button(dialogCard(page, marker), 'Approve').click();
    const response = await pending;
    expect(await response.json()).toMatchObject({ id: 'write', result: { isError: false, structuredContent: { rows_affected: 1 } } });
    await expect.poll(title, { timeout: 5_000 }).toBe('(1) Sluice console');

    await button(page.locator(`article[data-sheet-id="${sheetId}"]`), 'Deny').click();
    await expect.poll(title, { timeout: 5_000 }).toBe('Sluice console');
    expect(suite.app.pairing.sheets().find((s) => s.id === sheetId)?.status).toBe('denied');
  });

  it('a client with a progress token hears of the wait every 5 s of the application clock until a person approves in the console', async () => {
    const clock = new SteppingClock();
    clock.set(Date.now());
    const notifier = recordingNotifier();
    const timed = await startTestApp({ auth: true, clock, notifier, deliver: () => Promise.resolve() });
    try {
      const { page } = await suite.open(timed);
      const writer = mintToken(timed, `Progress writer ${unique()}`);
      const marker = `Progress dialog ${unique()}`;
      const response = await startWrite(timed, writer, `INSERT INTO genres (name) VALUES ('${marker}')`, 'console-wait');
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const stream = new EventStream(response);
      const report = async () => (await stream.next()).params;
      expect(await report()).toEqual({ progressToken: 'console-wait', progress: 0, total: 1, message: 'Checking the statement' });
      expect(await report()).toEqual({ progressToken: 'console-wait', progress: 0.125, total: 1, message: 'Waiting for approval in Sluice (0 s)' });

      // The console hears of the dialog once the change has settled on the application's clock.
      clock.advance(SETTLE);
      const card = dialogCard(page, marker);
      await card.waitFor();
      await expect.poll(() => page.title()).toBe('(1) Sluice console');

      const seen: { progress: number; message: string }[] = [];
      for (let k = 1; k <= 3; k++) {
        clock.advance(k === 1 ? STEP - SETTLE : STEP);
        const { progress, message } = await report();
        seen.push({ progress, message });
      }
      expect(seen).toEqual([
        { progress: 0.25 * (2 / 3), message: 'Waiting for approval in Sluice (5 s)' },
        { progress: 0.25 * (3 / 4), message: 'Waiting for approval in Sluice (10 s)' },
        { progress: 0.25 * (4 / 5), message: 'Waiting for approval in Sluice (15 s)' },
      ]);

      await button(card, 'Approve').click();
      expect(await report()).toEqual({ progressToken: 'console-wait', progress: 0.3, total: 1, message: 'Running on Demo bookshop' });
      expect(await report()).toEqual({ progressToken: 'console-wait', progress: 1, total: 1, message: '1 row(s) affected' });
      expect(await stream.next()).toMatchObject({ jsonrpc: '2.0', id: 'write', result: { isError: false, structuredContent: { rows_affected: 1 } } });
      expect(await stream.ended()).toBe(true);

      clock.advance(SETTLE);
      await expect.poll(() => card.count(), { timeout: 5_000 }).toBe(0);
      await expect.poll(() => page.title()).toBe('Sluice console');
      // The desktop notice raised with the dialog was withdrawn once it was answered.
      expect(notifier.notices.map(({ title, body, withdrawn }) => ({ title, body, withdrawn }))).toEqual([
        { title: NOTICE_TITLE, body: 'A client calling itself "Waiting writer" wants to change "Demo bookshop".', withdrawn: 1 },
      ]);
    } finally {
      await suite.closeSession();
      await timed.dispose();
    }
  });
});
