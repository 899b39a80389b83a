import { randomBytes } from 'node:crypto';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { challengeFor, createVerifier } from '../../src/pairing/pkce.js';
import { browserSuite, chromiumAvailable, screenshot, waitForInspectorLive } from '../helpers/browser.js';
import { expectToken, pairingLink, redeem } from '../helpers/pairing.js';
import { callTool } from '../helpers/testApp.js';

/**
 * A name a client chose is shown by the one rule of invisible characters everywhere in the console
 * (docs/console.md, "Invisible characters"), not only in a write's dialog: a bidi override, zero-width
 * and tag characters, and a terminal's ESC as marked ⟨U+…⟩ escapes, on the approval sheet, in the
 * Tokens, Connected clients and Activity views, and in the inspector.
 */

const canRun = chromiumAvailable();
const unique = () => randomBytes(4).toString('hex');

/** A pairing link refuses controls and bidi characters in the name, not zero-width or tag ones. */
const linkName = (tag: string) => `Pair\u200Dclient\u2060\u{E0067} ${tag}`;
const linkShown = (tag: string) => `Pair⟨U+200D⟩client⟨U+2060⟩⟨U+E0067⟩ ${tag}`;
/** Over MCP (clientInfo) any string is declared. */
const mcpName = (tag: string) => `Evil\u202Eclient\u200B\u{E0041}\u001b[2J ${tag}`;
const mcpShown = (tag: string) => `Evil⟨U+202E⟩client⟨U+200B⟩⟨U+E0041⟩⟨U+001B⟩[2J ${tag}`;
/** The characters sent above: none may be shown as itself. */
const HIDDEN = ['\u001b', '\u202e', '\u200b', '\u200d', '\u2060', '\u{E0041}', '\u{E0067}'];
const rawIn = (text: string) => HIDDEN.filter((c) => text.includes(c));

const escapes = (locator: Locator) => locator.locator('.escape').allTextContents();
const text = (locator: Locator) => locator.evaluate((el) => el.textContent ?? '');

describe.runIf(canRun)('hidden characters in the console, outside the write dialog', () => {
  const suite = browserSuite();

  it('the approval sheet, Tokens, Connected clients, Activity and the inspector show a client’s hidden characters as marked escapes', async () => {
    const session = await suite.open();
    const { page } = session;
    const inspector = await session.open('/inspector/');
    await waitForInspectorLive(inspector);
    const tag = unique();

    // A pairing link whose client name hides zero-width and tag characters.
    const verifier = createVerifier();
    const redirect = `${suite.callbacks.origin}/callback/${tag}`;
    const opened = suite.app.pairing.openLink(pairingLink({ client: linkName(tag), redirect, challenge: challengeFor(verifier) }));
    if (!opened.ok) throw new Error(`the pairing link was refused: ${opened.reason}`);
    const card = page.locator(`article[data-sheet-id="${opened.sheet.id}"]`);
    await card.waitFor();
    const shownName = card.locator('[data-client-name]');
    expect(await shownName.textContent()).toBe(linkShown(tag));
    expect(await escapes(shownName)).toEqual(['⟨U+200D⟩', '⟨U+2060⟩', '⟨U+E0067⟩']);
    expect(await shownName.locator('.escape').first().getAttribute('title')).toBe('Invisible character U+200D');
    expect(rawIn(await text(card))).toEqual([]);
    await screenshot(page, 'console-hidden-approval.png');

    // Approved, the token is named after the link's client; the client then declares another name over MCP.
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect.poll(() => suite.callbacks.received.filter((url) => url.pathname === `/callback/${tag}`).length, { timeout: 5_000 }).toBe(1);
    const code = suite.callbacks.received.find((url) => url.pathname === `/callback/${tag}`)!.searchParams.get('code')!;
    const plaintext = expectToken(await redeem(suite.app, { code, verifier }));
    const record = suite.app.tokens.list().find((t) => t.prefix === plaintext.slice(3, 11))!;
    await callTool(suite.app, 'list_connections', {}, {
      headers: { authorization: `Bearer ${plaintext}` },
      extraMeta: { 'io.modelcontextprotocol/clientInfo': { name: mcpName(tag), version: '1' } },
    });

    // The inspector: the request's principal (the token, named by the link) and the principal filter.
    const principal = inspector.locator(`article[data-principal-id="${record.id}"] [data-field="principal"]`).first();
    await principal.waitFor();
    expect(await principal.textContent()).toBe(linkShown(tag));
    expect(await escapes(principal)).toEqual(['⟨U+200D⟩', '⟨U+2060⟩', '⟨U+E0067⟩']);
    expect(await inspector.locator(`select[data-filter-principal] option[value="${record.id}"]`).textContent()).toBe(linkShown(tag));
    expect(rawIn(await text(inspector.locator('body')))).toEqual([]);

    // Tokens: the token's name (the link's client) and the client that last used it.
    const tokenRow = page.locator(`[data-list="tokens"] tr[data-token-id="${record.id}"]`);
    await expect.poll(() => tokenRow.locator('[data-cell="client"]').textContent(), { timeout: 5_000 }).toBe(mcpShown(tag));
    expect(await tokenRow.locator('[data-cell="name"]').textContent()).toBe(linkShown(tag));
    expect(await escapes(tokenRow.locator('[data-cell="client"]'))).toEqual(['⟨U+202E⟩', '⟨U+200B⟩', '⟨U+E0041⟩', '⟨U+001B⟩']);

    // Connected clients: the declared name, and the token it used.
    const clientRow = page.locator('[data-list="clients"] tr', { has: page.locator('th', { hasText: `[2J ${tag}` }) });
    await clientRow.waitFor();
    expect(await clientRow.locator('th').textContent()).toBe(mcpShown(tag));
    expect(await clientRow.locator('td').first().textContent()).toBe(linkShown(tag));
    expect(await escapes(clientRow)).toEqual(['⟨U+202E⟩', '⟨U+200B⟩', '⟨U+E0041⟩', '⟨U+001B⟩', '⟨U+200D⟩', '⟨U+2060⟩', '⟨U+E0067⟩']);

    // Activity: the request's row names the client and the token.
    const activityRow = page.locator('[data-list="activity"] tr', { has: page.locator('code', { hasText: 'list_connections' }) }).filter({ hasText: tag });
    await activityRow.first().waitFor();
    const who = activityRow.first().locator('td').nth(1);
    expect(await who.locator('.cell-title').textContent()).toBe(mcpShown(tag));
    expect(await who.locator('.cell-sub').textContent()).toBe(`token ${linkShown(tag)}`);

    // Nowhere on the page does one of them appear raw (the attributes that key rows are not shown).
    expect(rawIn(await text(page.locator('body')))).toEqual([]);
    await page.locator('#clients').scrollIntoViewIfNeeded();
    await screenshot(page, 'console-hidden-views.png');
  });
});
