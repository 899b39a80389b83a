import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, runSluice, SLUICE_BIN, spawnServe, waitForHandshake, type ServeProcess } from '../helpers/cli.js';
import { probeCredentialStore } from '../../src/platform/credentialProbe.js';
import { callTool } from '../helpers/testApp.js';

/** The whole pairing flow from the command line, as an extension author would run it. */
let dataDir: string;
let serve: ServeProcess;
let url: string;

const sluice = (...args: string[]) => runSluice([...args, '--data-dir', dataDir]);

async function pendingApprovalId(): Promise<string> {
  for (;;) {
    const sheets = JSON.parse(sluice('approvals', '--json').stdout) as { id: string }[];
    if (sheets[0]) return sheets[0].id;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function runPair(...args: string[]) {
  const child = spawn(process.execPath, [SLUICE_BIN, 'pair', ...args, '--data-dir', dataDir]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return { done: exited(child as never).then((exit) => ({ ...exit, stdout, stderr })) };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sluice-pair-'));
  serve = spawnServe(['--port', '0', '--data-dir', dataDir]);
  url = `http://127.0.0.1:${(await waitForHandshake(dataDir)).port}/mcp`;
});
afterAll(async () => {
  serve.child.kill('SIGTERM');
  await exited(serve.child);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('sluice pair, approve, deny (against a running sluice serve)', () => {
  it('pairs, is approved from the command line, and the token it prints works', async () => {
    const pairing = runPair('--client', 'Extension Test', '--scopes', 'readWrite', '--print-token');
    const id = await pendingApprovalId();
    const sheet = (JSON.parse(sluice('approvals', '--json').stdout) as Record<string, unknown>[])[0];
    expect(sheet).toMatchObject({
      id,
      kind: 'pairing',
      clientName: 'Extension Test',
      requestedLevel: 'readWrite',
      redirect: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/callback$/),
      connections: [{ id: 'demo', name: 'Demo bookshop' }],
    });
    expect(sluice('approve', id, '--level', 'readOnly', '--expires', '7').status).toBe(0);

    const result = await pairing.done;
    expect(result.code).toBe(0);
    const token = result.stdout.trim();
    expect(token).toMatch(/^sl_[A-Za-z0-9_-]{43}$/);
    expect(result.stderr).toContain(`sluice approve ${id}`);
    expect(result.stderr).toMatch(/\d:\d\d left/);

    const res = await callTool({ url }, 'list_connections', {}, { headers: { authorization: `Bearer ${token}` } });
    expect(res.json.result.structuredContent.connections[0].id).toBe('demo');
    // The level chosen on the sheet wins over the one requested.
    const listed = JSON.parse(sluice('tokens', 'list', '--json').stdout) as { name: string; level: string }[];
    expect(listed.find((t) => t.name === 'Extension Test')?.level).toBe('readOnly');
    // The plaintext is in no file of the support directory.
    for (const file of readdirSync(dataDir)) {
      if (file.endsWith('.sock')) continue;
      expect(readFileSync(join(dataDir, file)).includes(token), file).toBe(false);
    }
  });

  it('a denied pairing ends with a clear message and exit 1', async () => {
    const pairing = runPair('--client', 'Denied Client', '--print-token');
    expect(sluice('deny', await pendingApprovalId()).status).toBe(0);
    const result = await pairing.done;
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/sluice: the user denied the pairing/);
  });

  // Where a store answers (a desktop session), `pair` would wait for approval instead.
  it.skipIf(probeCredentialStore().ok)('without a credential store, pair refuses to start unless --print-token is given', () => {
    const result = sluice('pair', '--client', 'No Store');
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^sluice: nowhere to keep the token: .+; start a credential store .+ or pass --print-token\n$/);
  });

  it('revoking a token reaches the running application at once', async () => {
    const token = sluice('tokens', 'create', '--name', 'to-revoke', '--level', 'readOnly').stdout.trim();
    const auth = { headers: { authorization: `Bearer ${token}` } };
    expect((await callTool({ url }, 'list_connections', {}, auth)).status).toBe(200);
    const id = (JSON.parse(sluice('tokens', 'list', '--json').stdout) as { id: string; name: string }[]).find(
      (t) => t.name === 'to-revoke',
    )?.id as string;
    expect(sluice('tokens', 'revoke', id).stdout).toBe(`revoked ${id}\n`);
    const res = await callTool({ url }, 'list_connections', {}, auth);
    expect([res.status, res.json.error.code]).toEqual([401, -33009]);
  });

  it('open-url refuses a link whose redirect is not local, with the message the user sees', () => {
    const link = `sluice://integrations/pair?client=x&challenge=${'a'.repeat(43)}&redirect=${encodeURIComponent('https://evil.example/cb')}&scopes=readWrite`;
    const result = sluice('open-url', link);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      'sluice: The redirect https://evil.example/cb is not a local callback: Sluice only sends pairing codes to this computer.\n',
    );
    const refused = JSON.parse(sluice('activity', '--json', '--category', 'auth').stdout) as { action: string; outcome: string }[];
    expect(refused).toContainEqual(expect.objectContaining({ action: 'pairing.refused', outcome: 'denied' }));
  });

  it('server off answers -33006 on /mcp until it is switched back on; a pairing link switches it on', async () => {
    const token = sluice('tokens', 'create', '--name', 'switch').stdout.trim();
    const auth = { headers: { authorization: `Bearer ${token}` } };
    expect(sluice('server', 'off').stdout).toBe('MCP server off\n');
    const off = await callTool({ url }, 'list_connections', {}, auth);
    expect([off.status, off.json.error.code]).toEqual([503, -33006]);
    const link = `sluice://integrations/pair?client=x&challenge=${'a'.repeat(43)}&redirect=${encodeURIComponent('http://127.0.0.1:9/cb')}&scopes=readOnly`;
    expect(sluice('open-url', '--no-browser', link).status).toBe(0);
    expect(sluice('server', 'status').stdout).toBe('MCP server on\n');
    expect((await callTool({ url }, 'list_connections', {}, auth)).status).toBe(200);
    sluice('deny', await pendingApprovalId());
  });

  it('a second sluice serve on the same support directory is refused', async () => {
    const second = spawnServe(['--port', '0', '--data-dir', dataDir]);
    const exit = await exited(second.child);
    expect(exit.code).toBe(1);
    expect(second.stderr()).toMatch(/already running/);
  });

  it('sluice activity shows the log and verifies its chain', () => {
    const table = sluice('activity', '--limit', '5');
    expect(table.status).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^TIME\s+CATEGORY\s+ACTION\s+OUTCOME/);
    expect(sluice('activity', '--verify').stdout).toMatch(/^chain ok \(\d+ rows\)\n$/);
  });

  it('commands that need the running application say so when it is not running', () => {
    const empty = mkdtempSync(join(tmpdir(), 'sluice-none-'));
    const result = runSluice(['approvals', '--data-dir', empty]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^sluice: Sluice is not running/);
    rmSync(empty, { recursive: true, force: true });
  });
});
