import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { printed } from '../helpers/cli.js';
import { approvals, approve } from '../../src/cli/approvals.js';
import { callControl } from '../../src/cli/controlClient.js';
import { expectModernSuccess } from '../helpers/rpcAssertions.js';
import { expectToken, listToolsWith, openPairing, type PairingApp, pairAndApprove, redeem, startPairingApp } from '../helpers/pairing.js';

/**
 * Grants of custom tools (issue 32) where a person gives them: the approval sheet (which offers the
 * tools defined), `sluice approvals` / `sluice approve --tools`, and `tokens.create` on the control
 * socket (`sluice tokens create --tools`). A name that is not a custom tool defined now is refused.
 */

const TOOLS = {
  tools: [
    { name: 'demo_one', description: 'One.', connection: 'demo', statement: 'SELECT 1 AS one', kind: 'read' },
    { name: 'demo_two', description: 'Two.', connection: 'demo', statement: 'SELECT 2 AS two', kind: 'read' },
  ],
};

let h: PairingApp;
beforeEach(async () => {
  h = await startPairingApp();
  writeFileSync(join(h.app.dataDir, 'tools.json'), JSON.stringify(TOOLS));
  await h.app.customTools.reload();
});
afterEach(() => h.app.dispose());

const listedNames = async (token: string) => expectModernSuccess(await listToolsWith(h.app, token)).tools.map((tool: { name: string }) => tool.name);

describe('a grant of custom tools', () => {
  it('is offered by sluice approvals, given with sluice approve --tools, and shown once granted', async () => {
    const { sheet } = openPairing(h);
    const waiting = (await printed(() => approvals(['--data-dir', h.app.dataDir]))).split('\n');
    expect(waiting).toContain('    tools:         every tool the level allows, or only some of demo_one, demo_two (--tools)');
    await printed(() => approve([sheet.id, '--tools', 'demo_one', '--data-dir', h.app.dataDir]));
    const ended = (await printed(() => approvals(['--all', '--data-dir', h.app.dataDir]))).split('\n');
    expect(ended).toContain('    granted:       readWrite, connections all, only the tools demo_one, expires 30 d');
  });

  it('is offered on the approval sheet, and the token it mints lists only those tools', async () => {
    const { sheet } = openPairing(h);
    expect(sheet.tools).toEqual(['demo_one', 'demo_two']);
    expect(h.app.pairing.approve(sheet.id, { tools: ['demo_one', 'execute_query'] })).toEqual({ ok: false, reason: 'no custom tool named execute_query' });
    const approved = pairAndApprove(h, { tools: ['demo_two'] });
    expect(h.app.tokens.get(approved.tokenId)?.tools).toEqual(['demo_two']);
    expect(h.app.pairing.sheets().find((s) => s.id === approved.sheet.id)?.granted).toMatchObject({ tools: ['demo_two'] });
    expect(await listedNames(expectToken(await redeem(h.app, approved)))).toEqual(['demo_two']);
  });

  it('is taken by tokens.create on the control socket, which refuses a name that is not a custom tool', async () => {
    const created = (await callControl(h.app.dataDir, 'tokens.create', { name: 'narrow', tools: ['demo_one'] })) as { plaintext: string; id: string };
    expect(h.app.tokens.get(created.id)?.tools).toEqual(['demo_one']);
    expect(await listedNames(created.plaintext)).toEqual(['demo_one']);
    await expect(callControl(h.app.dataDir, 'tokens.create', { name: 'wrong', tools: ['list_tables'] })).rejects.toThrow('no custom tool named list_tables');
    await expect(callControl(h.app.dataDir, 'tokens.create', { name: 'empty', tools: [] })).rejects.toThrow('tools must be a list of custom tool names');
  });
});
