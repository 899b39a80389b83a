import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLICATION } from '../../src/core/contract.js';
import { NOTICE_TITLE } from '../../src/runtime/approvalNotices.js';
import { EventStream } from '../helpers/eventStream.js';
import { pairingLink } from '../helpers/pairing.js';
import { recordingNotifier } from '../helpers/recordingNotifier.js';
import { eventually } from '../helpers/polling.js';
import { SteppingClock } from '../helpers/steppingClock.js';
import { mintToken, mirroredHeaders, modernMeta, type Minted, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * Issue 17, "Waiting is visible": a write waiting on a dialog in Sluice tells a client that sent a
 * progress token so every `APPLICATION.approvalProgressMs` (contract, "Progress streaming": increasing
 * progress, execute_query's 0, 0.3 and 1 kept), and every waiting approval raises a desktop notice that
 * is withdrawn when it ends.
 */

const STEP = APPLICATION.approvalProgressMs;
const unique = () => randomBytes(4).toString('hex');

/** `execute_query` as a client without elicitation sends it, read as it streams. */
async function startWrite(app: TestApp, token: Minted, sql: string, options: { progressToken?: string | number; client: string }) {
  const params = { name: 'execute_query', arguments: { connection_id: 'demo', sql } };
  const meta = modernMeta({
    'io.modelcontextprotocol/clientInfo': { name: options.client, version: '1.0.0' },
    ...(options.progressToken !== undefined ? { progressToken: options.progressToken } : {}),
  });
  return fetch(app.url, {
    method: 'POST',
    headers: { ...mirroredHeaders('tools/call', params), ...token.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { ...params, _meta: meta } }),
  });
}

const waiting = (progressToken: string | number, progress: number, seconds: number) => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken, progress, total: 1, message: `Waiting for approval in Sluice (${seconds} s)` },
});

/** The k-th waiting report after progress 0: a quarter of the way, k/(k+1) of it. */
const share = (k: number) => 0.25 * (k / (k + 1));

describe('a write waiting on a dialog', () => {
  const clock = new SteppingClock();
  clock.set(Date.now());
  const notifier = recordingNotifier();
  let app: TestApp;
  let writer: Minted;
  beforeAll(async () => {
    app = await startTestApp({ auth: true, clock, notifier });
    writer = mintToken(app, 'approval progress writer');
  });
  afterAll(() => app?.dispose());

  const dialogOf = (marker: string) => eventually(() => app.dialogs.list().find((d) => d.statement.includes(marker)), `the dialog of ${marker}`);

  it('with a progress token: a report at once and every 5 s, increasing, below 0.3; after Approve, 0.3, 1 and the answer only', async () => {
    const marker = `progress ${unique()}`;
    const idle = clock.pendingTimers();
    const response = await startWrite(app, writer, `INSERT INTO genres (name) VALUES ('${marker}')`, { progressToken: 'wait-1', client: 'Waiting client' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = new EventStream(response);
    expect((await stream.next()).params).toEqual({ progressToken: 'wait-1', progress: 0, total: 1, message: 'Checking the statement' });
    expect(await stream.next()).toEqual(waiting('wait-1', share(1), 0));
    const dialog = await dialogOf(marker);

    for (let k = 1; k <= 4; k++) {
      // Not a moment early: a report at 4.999 s would say "(4 s)", not the one expected.
      clock.advance(STEP - 1);
      clock.advance(1);
      expect(await stream.next()).toEqual(waiting('wait-1', share(k + 1), (k * STEP) / 1000));
    }

    expect(app.dialogs.answer(dialog.id, 'approve')).toBe(true);
    expect((await stream.next()).params).toEqual({ progressToken: 'wait-1', progress: 0.3, total: 1, message: 'Running on Demo bookshop' });
    expect((await stream.next()).params).toEqual({ progressToken: 'wait-1', progress: 1, total: 1, message: '1 row(s) affected' });
    const answer = await stream.next();
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 'w', result: { isError: false, structuredContent: { rows_affected: 1 } } });
    expect(await stream.ended()).toBe(true);

    // The reporting stopped with the dialog: once the console's change signal has settled, the clock
    // holds the timers it held before the request, and no more.
    await eventually(() => (app.liveActors() === 0 ? true : undefined), 'the request and its dialog to end');
    clock.advance(3 * STEP);
    expect(clock.pendingTimers()).toBe(idle);
  });

  it('an integer progress token, and Deny: the reports stop and the answer is the denial', async () => {
    const marker = `denied ${unique()}`;
    const response = await startWrite(app, writer, `INSERT INTO genres (name) VALUES ('${marker}')`, { progressToken: 7, client: 'Denied client' });
    const stream = new EventStream(response);
    expect((await stream.next()).params.progress).toBe(0);
    expect(await stream.next()).toEqual(waiting(7, share(1), 0));
    const dialog = await dialogOf(marker);
    clock.advance(STEP);
    expect(await stream.next()).toEqual(waiting(7, share(2), STEP / 1000));
    expect(app.dialogs.answer(dialog.id, 'deny')).toBe(true);
    const answer = await stream.next();
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 'w', result: { isError: true } });
    expect(answer.result.content[0].text).toMatch(/^denied: /);
    expect(await stream.ended()).toBe(true);
  });

  it('without a progress token nothing is sent while it waits: one JSON answer once approved', async () => {
    const marker = `plain ${unique()}`;
    let headersArrived = false;
    const pending = startWrite(app, writer, `INSERT INTO genres (name) VALUES ('${marker}')`, { client: 'Plain client' }).then((response) => {
      headersArrived = true;
      return response;
    });
    const dialog = await dialogOf(marker);
    clock.advance(4 * STEP);
    // Let any bytes the server might have written reach this side before looking.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(headersArrived).toBe(false);
    expect(app.dialogs.answer(dialog.id, 'approve')).toBe(true);
    const response = await pending;
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await response.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 'w', result: { isError: false, structuredContent: { rows_affected: 1 } } });
  });

  it('each dialog raises one desktop notice naming the client (one line, cut short) and the connection, never the statement; withdrawn when answered', async () => {
    const marker = `notice ${unique()}`;
    const before = notifier.notices.length;
    const client = `Evil\nclient ${'x'.repeat(100)}`;
    const pending = startWrite(app, writer, `INSERT INTO genres (name) VALUES ('${marker}')`, { client });
    const dialog = await dialogOf(marker);
    expect(notifier.notices).toHaveLength(before + 1);
    const notice = notifier.notices.at(-1)!;
    expect(notice.title).toBe(NOTICE_TITLE);
    expect(notice.body).toBe(`A client calling itself "Evil⟨U+000A⟩client ${'x'.repeat(47)}…" wants to change "Demo bookshop".`);
    expect(notice.body).not.toContain(marker);
    expect(notice.onClick).toBeTypeOf('function');
    expect(notice.withdrawn).toBe(0);
    expect(app.dialogs.answer(dialog.id, 'approve')).toBe(true);
    await pending;
    await eventually(() => (notice.withdrawn === 1 ? true : undefined), 'the notice to be withdrawn');
    expect(notifier.notices).toHaveLength(before + 1);
  });

  it('a client that names no one is named by its token, which the user chose', async () => {
    const marker = `unnamed ${unique()}`;
    const params = { name: 'execute_query', arguments: { connection_id: 'demo', sql: `INSERT INTO genres (name) VALUES ('${marker}')` } };
    const pending = fetch(app.url, {
      method: 'POST',
      headers: { ...mirroredHeaders('tools/call', params), ...writer.headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'u', method: 'tools/call', params: { ...params, _meta: modernMeta() } }),
    });
    const dialog = await dialogOf(marker);
    expect(notifier.notices.at(-1)?.body).toBe('The client of the token "approval progress writer" wants to change "Demo bookshop".');
    expect(app.dialogs.answer(dialog.id, 'deny')).toBe(true);
    expect((await pending).status).toBe(200);
  });

  it('a pairing sheet raises a notice too, withdrawn when its five minutes pass', async () => {
    const before = notifier.notices.length;
    const client = `Pairing client ${unique()}`;
    const opened = app.pairing.openLink(pairingLink({ client, redirect: 'http://127.0.0.1:9/cb' }));
    expect(opened.ok).toBe(true);
    expect(notifier.notices.slice(before).map(({ title, body, withdrawn }) => ({ title, body, withdrawn }))).toEqual([
      { title: NOTICE_TITLE, body: `A client calling itself "${client}" asks to connect to Sluice.`, withdrawn: 0 },
    ]);
    clock.advance(5 * 60_000);
    expect(app.pairing.sheets()[0]?.status).toBe('expired');
    expect(notifier.notices[before]?.withdrawn).toBe(1);
  });
});
