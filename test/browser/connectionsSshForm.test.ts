import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, chromiumAvailable, CONSOLE_SESSION_KEY, type PageGlobals, postFromPage, screenshot } from '../helpers/browser.js';
import { POSTGRES_URL } from '../helpers/engines.js';

/**
 * The console's add and edit forms set a server connection's SSH tunnel and a DuckDB connection's
 * files directory (issue 20, "the same in the console"), checked like `sluice connections add/update`:
 * a tunnel to a host that does not exist is refused with the exact reason and nothing is saved.
 */

const canRun = chromiumAvailable();
const text = async (locator: Locator) => ((await locator.textContent()) ?? '').trim();

type Listed = { id: string; name: string; url?: string; path?: string; engine: string; ssh?: Record<string, unknown>; filesDir?: string };

/** `GET /api/state`'s connections, as the page reads them. */
async function stateConnections(page: Page): Promise<Listed[]> {
  const state = (await page.evaluate(async (key) => {
    const session = (globalThis as unknown as PageGlobals).localStorage.getItem(key);
    return (await fetch('/api/state', { headers: { authorization: `Bearer ${session}` } })).json();
  }, CONSOLE_SESSION_KEY)) as { connections: Listed[] };
  return state.connections;
}

describe.runIf(canRun)('SSH tunnel and files directory in the connection forms, in Chromium', () => {
  const suite = browserSuite();
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-console-ssh-form-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const config = () => readFileSync(join(suite.app.dataDir, 'config.json'), 'utf8');
  const row = (page: Page, id: string) => page.locator(`tr[data-connection-id="${id}"]`);

  it('adds, shows and removes an SSH tunnel; adds and clears a files directory', async () => {
    const session = await suite.open();
    const { page } = session;
    const refusals = () => session.problems.splice(0).filter((problem) => problem.startsWith('HTTP '));
    await row(page, 'demo').waitFor();
    const add = page.locator('#connection-form');

    // The SSH section shows for a server URL only.
    expect(await add.locator('[data-ssh-fields]').isHidden()).toBe(true);
    await add.getByLabel('Server URL (PostgreSQL, MySQL)').check();
    expect(await add.locator('[data-ssh-fields]').isVisible()).toBe(true);
    expect(await add.locator('[data-files-dir]').isHidden()).toBe(true);

    // A host that cannot be read is refused in the page; one that does not exist by the check.
    const before = config();
    await add.getByLabel('Name').fill('Shop');
    await add.getByLabel('Server URL', { exact: true }).fill(POSTGRES_URL);
    await add.getByLabel('SSH host').fill('tunnel@bad host');
    await add.getByRole('button', { name: 'Add connection' }).click();
    await expect.poll(() => text(add.locator('[data-error="connection-add"]'))).toBe(
      'The SSH host must be [user@]host[:port] (the host may be a ~/.ssh/config alias).',
    );
    await add.getByLabel('SSH host').fill('tunnel@nohost.invalid:2222');
    await add.getByLabel('Jump hosts').fill('hop@jump.invalid');
    const body = { name: 'Shop', url: POSTGRES_URL, ssh: { user: 'tunnel', host: 'nohost.invalid', port: 2222, jump: 'hop@jump.invalid' }, externalAccess: 'readOnly', aiPolicy: 'askEachTime', check: true };
    const expected = ((await postFromPage(page, 'connections.add', body)) as { error: string }).error;
    // The first hop is the jump host, and it does not resolve.
    expect(expected).toBe('cannot reach the SSH server jump.invalid: getaddrinfo ENOTFOUND jump.invalid');
    await add.getByRole('button', { name: 'Add connection' }).click();
    await expect.poll(() => text(add.locator('[data-error="connection-add"]'))).toBe(expected);
    expect(await add.getByLabel('SSH host').inputValue()).toBe('tunnel@nohost.invalid:2222');
    expect(await add.getByLabel('Jump hosts').inputValue()).toBe('hop@jump.invalid');
    expect(config()).toBe(before);
    expect(await row(page, 'shop').count()).toBe(0);
    // The same refusal twice: once for the call above, once for the form.
    expect(refusals()).toEqual([`HTTP 400 for POST ${session.origin}/api/connections.add`, `HTTP 400 for POST ${session.origin}/api/connections.add`]);

    // Saved without the check (the console always checks; the control command need not): the row says
    // where it goes through, and the state carries the block.
    const { check: _check, ...unchecked } = body;
    await postFromPage(page, 'connections.add', unchecked);
    await expect.poll(() => text(row(page, 'shop').locator('[data-cell="via"]'))).toBe('via SSH tunnel@nohost.invalid:2222');
    expect((await stateConnections(page)).find((c) => c.id === 'shop')?.ssh).toEqual({ user: 'tunnel', host: 'nohost.invalid', port: 2222, jump: 'hop@jump.invalid' });
    await screenshot(page, 'connections-ssh.png');

    // Edit shows the tunnel; a change to it is checked too, and the form keeps what was typed.
    await row(page, 'shop').getByRole('button', { name: 'Edit' }).click();
    const edit = page.locator('#connection-edit-form');
    expect(await edit.getByLabel('SSH host').inputValue()).toBe('tunnel@nohost.invalid:2222');
    expect(await edit.getByLabel('Jump hosts').inputValue()).toBe('hop@jump.invalid');
    expect(await edit.getByLabel('Use the SSH agent').isChecked()).toBe(false);
    expect(await edit.locator('[data-files-dir]').isHidden()).toBe(true);
    await edit.getByLabel('Jump hosts').fill('');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => text(edit.locator('[data-error="connection-edit"]'))).toBe(
      'Not saved: cannot reach the SSH server [nohost.invalid]:2222: getaddrinfo ENOTFOUND nohost.invalid',
    );
    expect(await edit.getByLabel('SSH host').inputValue()).toBe('tunnel@nohost.invalid:2222');
    expect((await stateConnections(page)).find((c) => c.id === 'shop')?.ssh).toMatchObject({ jump: 'hop@jump.invalid' });
    expect(refusals()).toEqual([`HTTP 400 for POST ${session.origin}/api/connections.update`]);

    // Emptying the host removes the tunnel: checked straight to the server, saved, the row says so.
    await edit.getByLabel('SSH host').fill('');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => edit.isHidden()).toBe(true);
    await expect.poll(() => text(row(page, 'shop').locator('[data-cell="via"]'))).toBe('');
    const shop = (await stateConnections(page)).find((c) => c.id === 'shop');
    expect(shop).toMatchObject({ engine: 'postgres' });
    expect(shop?.ssh).toBeUndefined();
    expect(config()).not.toContain('nohost.invalid');

    // DuckDB: the files directory must be absolute (the server's words), then it is saved.
    await add.getByLabel('DuckDB file').check();
    expect(await add.locator('[data-ssh-fields]').isHidden()).toBe(true);
    await add.getByLabel('Name').fill('Lake');
    await add.getByLabel('File path').fill(':memory:');
    await add.getByLabel('Files directory').fill('data');
    await add.getByRole('button', { name: 'Add connection' }).click();
    await expect.poll(() => text(add.locator('[data-error="connection-add"]'))).toBe(
      'the connection.filesDir must be an absolute directory path, on DuckDB connections only',
    );
    expect(await add.getByLabel('Files directory').inputValue()).toBe('data');
    expect(refusals()).toEqual([`HTTP 400 for POST ${session.origin}/api/connections.add`]);
    await add.getByLabel('Files directory').fill(dir);
    await add.getByRole('button', { name: 'Add connection' }).click();
    await row(page, 'lake').waitFor();
    expect((await stateConnections(page)).find((c) => c.id === 'lake')).toMatchObject({ engine: 'duckdb', path: ':memory:', filesDir: dir });

    // Edit shows it; emptying it removes it.
    await row(page, 'lake').getByRole('button', { name: 'Edit' }).click();
    expect(await edit.getByLabel('Files directory').inputValue()).toBe(dir);
    expect(await edit.locator('[data-ssh-fields]').isHidden()).toBe(true);
    await edit.getByLabel('Files directory').fill('');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => edit.isHidden()).toBe(true);
    const lake = (await stateConnections(page)).find((c) => c.id === 'lake');
    expect(lake).toMatchObject({ engine: 'duckdb', path: ':memory:' });
    expect(lake?.filesDir).toBeUndefined();
  });
});
