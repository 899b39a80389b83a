import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activity } from '../../src/cli/activity.js';
import { approvals } from '../../src/cli/approvals.js';
import { callControl } from '../../src/cli/controlClient.js';
import { openUrl } from '../../src/cli/openUrl.js';
import { tokens } from '../../src/cli/tokens.js';
import { challengeFor, createVerifier } from '../../src/pairing/pkce.js';
import { printed, runSluice } from '../helpers/cli.js';
import { pairingLink } from '../helpers/pairing.js';
import { callTool, mintToken, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * Every command that prints a name a client chose shows it by the one rule of invisible characters
 * (docs/console.md, "Invisible characters"): a bidi override, zero-width and tag characters as ⟨U+…⟩,
 * and a terminal's escape sequence neutralised, its ESC never reaching the terminal raw.
 */

/** Declared over MCP (clientInfo), where any string is taken: bidi, zero-width, a tag character and ESC. */
const MCP_NAME = 'Evil\u202Eclient\u200B\u{E0041}\u001b[2J';
const MCP_SHOWN = 'Evil⟨U+202E⟩client⟨U+200B⟩⟨U+E0041⟩⟨U+001B⟩[2J';
/** In a pairing link, which refuses controls and bidi characters but not zero-width or tag ones. */
const LINK_NAME = 'Pair\u200Dclient\u2060\u{E0067}';
const LINK_SHOWN = 'Pair⟨U+200D⟩client⟨U+2060⟩⟨U+E0067⟩';
/** The characters sent above: none may be shown as itself. */
const HIDDEN = ['\u001b', '\u202e', '\u200b', '\u200d', '\u2060', '\u{E0041}', '\u{E0067}'];
const rawIn = (text: string) => HIDDEN.filter((c) => text.includes(c));


describe('names a client chose, printed by the command line', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ auth: true });
  });
  afterAll(() => app?.dispose());

  const openLink = () => {
    const opened = app.pairing.openLink(pairingLink({ client: LINK_NAME, challenge: challengeFor(createVerifier()) }));
    if (!opened.ok) throw new Error(`the pairing link was refused: ${opened.reason}`);
    return opened.sheet;
  };

  it('sluice approvals shows a pairing link’s zero-width and tag characters as escapes', async () => {
    const sheet = openLink();
    const out = await printed(() => approvals(['--data-dir', app.dataDir]));
    expect(out.split('\n')).toContain(`${sheet.id}  pairing  ${LINK_SHOWN}`);
    expect(rawIn(out)).toEqual([]);
    expect(app.pairing.deny(sheet.id).ok).toBe(true);
    // An ended sheet (`--all`) names the client the same way.
    const all = await printed(() => approvals(['--data-dir', app.dataDir, '--all']));
    expect(all.split('\n')).toContain(`${sheet.id}  pairing  ${LINK_SHOWN}  denied`);
    expect(rawIn(all)).toEqual([]);
  });

  it('sluice open-url names the client as the approval sheet does', async () => {
    const link = pairingLink({ client: LINK_NAME, challenge: challengeFor(createVerifier()) });
    const out = await printed(() => openUrl(['--data-dir', app.dataDir, '--no-browser', link]));
    expect(out.startsWith(`${LINK_SHOWN} asks for readWrite access; approval `)).toBe(true);
    expect(rawIn(out)).toEqual([]);
  });

  it('sluice tokens list and sluice activity show a token named with hidden characters and a client with ESC as escapes', async () => {
    // A token's name may not hold controls or bidi characters (docs/console.md), but zero-width and tag ones.
    const token = mintToken(app, LINK_NAME, 'readOnly');
    await callTool(app, 'list_connections', {}, {
      headers: token.headers,
      extraMeta: { 'io.modelcontextprotocol/clientInfo': { name: MCP_NAME, version: '1' } },
    });

    const remote = (method: string, params: Record<string, unknown>) => callControl(app.dataDir, method, params);
    const list = await printed(() => tokens(['list'], { remote }));
    const row = list.split('\n').find((line) => line.startsWith(token.id));
    // The columns (ID, NAME, …), two spaces or more apart.
    expect(row?.split(/ {2,}/).slice(0, 2)).toEqual([token.id, LINK_SHOWN]);
    expect(rawIn(list)).toEqual([]);

    // The request's row reaches the log at the end of its turn.
    await expect.poll(() => app.activity.list({ limit: 50 }).some((r) => r.token_id === token.id && r.client_name === MCP_NAME)).toBe(true);
    const log = await printed(() => activity(['--data-dir', app.dataDir, '--limit', '50']));
    // TIME, CATEGORY, ACTION, OUTCOME, TOKEN, CLIENT: the token's name and the client's, escaped.
    const logged = log.split('\n').map((line) => line.split(/ {2,}/)).find((cells) => cells[2] === 'list_connections' && cells[4] === LINK_SHOWN);
    expect(logged?.slice(3, 6)).toEqual(['success', LINK_SHOWN, MCP_SHOWN]);
    expect(rawIn(log)).toEqual([]);
  });
});

describe('an error quoting what it was given', () => {
  it('is printed with its ESC and bidi characters escaped', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-hidden-'));
    try {
      const result = runSluice(['tokens', 'revoke', 'tok_\u001b]0;owned\u0007\u202E', '--data-dir', dataDir]);
      expect(result.status).toBe(1);
      expect(result.stderr).toBe('sluice: no token with id "tok_⟨U+001B⟩]0;owned⟨U+0007⟩⟨U+202E⟩"\n');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
