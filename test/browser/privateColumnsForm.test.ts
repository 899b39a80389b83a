import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSuite, chromiumAvailable } from '../helpers/browser.js';
import { callTool, mintToken } from '../helpers/testApp.js';

/**
 * The console's private columns (issue 30) in real Chromium: a rule added for the demo connection masks
 * the next statement an AI client runs; a bad pattern is refused with its reason and nothing saved; a
 * token exempted reads the values; removing the rule ends the masking.
 */

const canRun = chromiumAvailable();
const text = async (locator: Locator) => ((await locator.textContent()) ?? '').trim();

describe.runIf(canRun)('private columns in Chromium', () => {
  const suite = browserSuite();
  const policy = () =>
    (JSON.parse(readFileSync(join(suite.app.dataDir, 'config.json'), 'utf8')) as { connections: Array<{ id: string; columnPolicy?: unknown }> }).connections.find((c) => c.id === 'demo')
      ?.columnPolicy;

  it('adds a rule, refuses a bad pattern, exempts a token and removes the rule', async () => {
    const model = mintToken(suite.app, 'model');
    const email = async () =>
      (await callTool(suite.app, 'execute_query', { connection_id: 'demo', sql: 'SELECT email FROM customers ORDER BY id LIMIT 1' }, { headers: model.headers })).json.result.structuredContent.rows[0][0] as string;
    const clear = await email();
    expect(clear).toMatch(/@/);

    const session = await suite.open();
    const { page } = session;
    const form = page.locator('#mask-form');
    await form.getByLabel('Connection', { exact: true }).selectOption('demo');

    await form.getByLabel('Column pattern').fill('users.email');
    await form.getByRole('button', { name: 'Add rule' }).click();
    await expect.poll(() => text(form.locator('[data-error="masks"]'))).toMatch(/is not a column pattern/);
    expect(session.problems.splice(0).filter((p) => p.startsWith('HTTP '))).toHaveLength(1);
    expect(policy()).toBeUndefined();

    await form.getByLabel('Column pattern').fill('*email*');
    await form.getByLabel('Action').selectOption('mask');
    await form.getByRole('button', { name: 'Add rule' }).click();
    await expect.poll(() => text(form.locator('[data-list="mask-rules"]'))).toContain('*email* — masked');
    expect(policy()).toEqual({ rules: [{ pattern: '*email*', action: 'mask' }], exemptTokens: [] });
    expect(await email()).toMatch(/^[a-z]\*\*\*@[a-z]\*\*\*\.[a-z]+$/);

    await form.getByLabel('Token', { exact: true }).selectOption(model.id);
    await form.getByRole('button', { name: 'Exempt from the policy' }).click();
    await expect.poll(() => text(form.locator('[data-list="mask-exempt"]'))).toContain(`model (${model.id})`);
    expect(await email()).toBe(clear);

    await form.getByRole('button', { name: 'Unexempt' }).click();
    await form.getByRole('button', { name: 'Remove *email*' }).click();
    await expect.poll(() => text(form.locator('[data-empty="mask-rules"]:not([hidden])'))).toBe('No private columns on this connection.');
    expect(policy()).toBeUndefined();
    expect(await email()).toBe(clear);
  });
});
