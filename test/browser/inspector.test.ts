import { randomBytes } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { pairingCodeId, pairingRequestId } from '../../machines/supervisor.js';
import { publicActorId } from '../../src/console/inspectorFeed.js';
import { challengeFor, createVerifier } from '../../src/pairing/pkce.js';
import { browserSuite, chromiumAvailable, type ConsoleSession, screenshot, waitForConsoleLive, waitForInspectorLive } from '../helpers/browser.js';
import { callTool, mintToken } from '../helpers/testApp.js';
import { expectToken, pairingLink, redeem, UUID } from '../helpers/pairing.js';

/**
 * The live actor inspector in real headless Chromium (docs/console.md, "The inspector feed"): actors
 * appear as cards with their statechart, the current state and the last arrow taken follow the feed, the
 * event log records each step, and nothing secret or foreign ever reaches the page.
 */

const canRun = chromiumAvailable();

const unique = () => randomBytes(4).toString('hex');
/** Stopped actors stay on screen for ten minutes: the test sees the last state of a short-lived one. */
const INSPECTOR = '/inspector/?linger=600000';

const actorCard = (page: Page, actorId: string) => page.locator(`article[data-actor-id="${actorId}"]`);
const stateNode = (card: Locator, state: string) => card.locator(`svg g[data-state="${state}"]`);
const attribute = (locator: Locator, name: string) => () => locator.getAttribute(name);

describe.runIf(canRun)('the inspector page in Chromium', () => {
  const suite = browserSuite();

  /** The console signed in once (its session is in the origin's storage, shared by the context's tabs), then the inspector in a second tab. */
  async function openInspector(): Promise<{ console: Page; inspector: Page; session: ConsoleSession }> {
    const session = await suite.open();
    const inspector = await session.open(INSPECTOR);
    await waitForInspectorLive(inspector);
    // The statecharts are drawn from the machine definitions.
    await inspector.locator('section[data-machine-section="pairingRequest"]').waitFor({ state: 'attached' });
    return { console: session.page, inspector, session };
  }

  function openLink(client: string) {
    const verifier = createVerifier();
    const redirect = `${suite.callbacks.origin}/inspector/${unique()}`;
    const opened = suite.app.pairing.openLink(pairingLink({ client, redirect, challenge: challengeFor(verifier) }));
    if (!opened.ok) throw new Error(`the pairing link was refused: ${opened.reason}`);
    return { verifier, redirect, sheetId: opened.sheet.id };
  }

  it('a pairingRequest card moves from awaitingApproval to codePending when the sheet is approved in the console tab', async () => {
    const { console, inspector } = await openInspector();
    const { verifier, redirect, sheetId } = openLink(`Inspected client ${unique()}`);
    const requestActor = publicActorId('pairingRequest', pairingRequestId(sheetId));

    const card = actorCard(inspector, requestActor);
    await card.waitFor();
    expect(await card.getAttribute('data-machine')).toBe('pairingRequest');
    expect(await inspector.locator(`section[data-machine-section="pairingRequest"] article[data-actor-id="${requestActor}"]`).count()).toBe(1);
    expect(await card.getAttribute('data-status')).toBe('active');
    expect(await card.locator('[data-field="state"]').textContent()).toBe('awaitingApproval');
    expect(await card.locator('svg[data-chart="pairingRequest"]').count()).toBe(1);
    await expect.poll(attribute(stateNode(card, 'awaitingApproval'), 'data-current')).toBe('true');
    expect(await card.locator('g.edge[data-taken="true"]').count()).toBe(0);

    // Approved by clicking in the console's own tab.
    const sheet = console.locator(`article[data-sheet-id="${sheetId}"]`);
    await sheet.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect.poll(attribute(sheet, 'data-status'), { timeout: 5_000 }).toBe('approved');

    await expect.poll(attribute(stateNode(card, 'codePending'), 'data-current'), { timeout: 5_000 }).toBe('true');
    expect(await stateNode(card, 'awaitingApproval').getAttribute('data-current')).toBeNull();
    expect(await card.locator('[data-field="state"]').textContent()).toBe('codePending');
    const edge = card.locator('g.edge[data-from="awaitingApproval"][data-to="codePending"]');
    expect(await edge.getAttribute('data-taken')).toBe('true');
    expect(await card.locator('g.edge[data-taken="true"]').count()).toBe(1);
    // codePending is final: the actor stops, and lingers greyed rather than vanishing.
    await expect.poll(attribute(card, 'data-status')).toBe('stopped');

    const transitions = inspector.locator(`tr[data-log-entry][data-type="transition"][data-actor-id="${requestActor}"]`);
    await expect.poll(() => transitions.count()).toBe(1);
    expect(await transitions.locator('td.event').textContent()).toBe('approve');
    expect((await transitions.locator('.from').textContent())?.trim()).toBe('awaitingApproval');
    expect((await transitions.locator('.to').textContent())?.trim()).toBe('codePending');
    expect(await inspector.locator(`tr[data-log-entry][data-type="actor"][data-actor-id="${requestActor}"]`).count()).toBe(1);
    expect(await inspector.locator(`tr[data-log-entry][data-type="stopped"][data-actor-id="${requestActor}"]`).count()).toBe(1);

    // The code's own actor: pending until the client exchanges it, then spent.
    const delivered = () => suite.callbacks.received.find((url) => url.pathname === new URL(redirect).pathname);
    await expect.poll(delivered, { timeout: 5_000 }).toBeDefined();
    const code = delivered()!.searchParams.get('code') ?? '';
    expect(code).toMatch(UUID);
    const codeCard = actorCard(inspector, publicActorId('pairingCode', pairingCodeId(code)));
    await codeCard.waitFor();
    await expect.poll(attribute(stateNode(codeCard, 'pending'), 'data-current')).toBe('true');
    const token = expectToken(await redeem(suite.app, { code, verifier }));
    await expect.poll(attribute(stateNode(codeCard, 'spent'), 'data-current'), { timeout: 5_000 }).toBe('true');
    expect(await codeCard.locator('g.edge[data-from="pending"][data-to="spent"]').getAttribute('data-taken')).toBe('true');

    // No secret reached the page: not the code, not the verifier, not the token, not the raw actor ids.
    const html = await inspector.content();
    for (const secret of [code, verifier, token, token.slice(3), sheetId]) expect(html).not.toContain(secret);
  });

  it('shows a few actors at once, with their principals (screenshot)', async () => {
    const { inspector } = await openInspector();
    // A pairing still waiting, a request by a token, and a pairing answered.
    const waiting = openLink(`Waiting client ${unique()}`);
    const reader = mintToken(suite.app, `Inspector reader ${unique()}`, 'readOnly');
    const listed = await callTool(suite.app, 'list_tables', { connection_id: 'demo' }, { headers: reader.headers });
    expect(listed.status).toBe(200);
    const denied = openLink(`Denied client ${unique()}`);
    expect(suite.app.pairing.deny(denied.sheetId)).toEqual({ ok: true });

    await actorCard(inspector, publicActorId('pairingRequest', pairingRequestId(waiting.sheetId))).waitFor();
    const deniedCard = actorCard(inspector, publicActorId('pairingRequest', pairingRequestId(denied.sheetId)));
    await expect.poll(attribute(stateNode(deniedCard, 'denied'), 'data-current'), { timeout: 5_000 }).toBe('true');
    const request = inspector.locator(`article[data-machine="inflightRequest"][data-principal-id="${reader.id}"]`);
    await request.first().waitFor();
    expect(await request.first().locator('[data-field="principal"]').textContent()).toBe(reader.name);
    // The principal filter offers the token by name.
    expect(await inspector.locator(`select[data-filter-principal] option[value="${reader.id}"]`).textContent()).toBe(reader.name);
    await screenshot(inspector, 'inspector.png');
  });

  it('neither page asks anything of another origin, and both only use their own API', async () => {
    const { console, inspector, session } = await openInspector();
    await console.reload();
    await waitForConsoleLive(console);
    const paths = new Set(session.requests.map((url) => new URL(url).pathname));
    // The pages, their own scripts and style sheets, and the documented API: nothing else.
    const api = ['/api/session', '/api/state', '/api/activity', '/api/events', '/api/inspector/machines', '/api/inspector/events'];
    for (const path of ['/open', '/', '/inspector/', ...api]) expect(paths).toContain(path);
    const other = [...paths].filter((path) => !['/open', '/', '/inspector/', ...api].includes(path));
    for (const path of other) expect(path).toMatch(/^\/(inspector\/|shared\/|core\/)?[\w-]+\.(css|js)$/);
    expect(other).toEqual(expect.arrayContaining(['/console.js', '/inspector/inspector.js']));
    expect(await inspector.locator('[data-load-error]').isHidden()).toBe(true);
    expect(await console.locator('[data-load-error]').isHidden()).toBe(true);
  });
});
