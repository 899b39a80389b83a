import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXCHANGE, UNVERIFIED_BEARERS } from '../../src/core/contract.js';
import { challengeFor, createVerifier } from '../../src/pairing/pkce.js';
import { exited, runSluice, spawnServe, waitForHandshake, type ServeProcess } from '../helpers/cli.js';
import { pairingLink } from '../helpers/pairing.js';
import { mcp } from '../helpers/testApp.js';

/**
 * `sluice lockouts list|clear` against a running `sluice serve`: who the limits hold back and until when,
 * clearing one or all, the admin rows it leaves; and `sluice approvals --all`, which shows what an
 * approved sheet granted.
 */
let dataDir: string;
let serve: ServeProcess;
let port: number;

const sluice = (...args: string[]) => runSluice([...args, '--data-dir', dataDir]);
const json = (...args: string[]) => {
  const result = sluice(...args, '--json');
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout);
};

/** A pairing code exchange that cannot succeed: an unknown code with a well-formed verifier. */
async function badExchange(): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}${EXCHANGE.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: 'no-such-code', code_verifier: createVerifier() }),
  });
  await res.text();
  return res.status;
}

async function lockOutExchanges(): Promise<void> {
  for (let i = 0; i < EXCHANGE.lockout.failures; i++) expect(await badExchange()).toBe(404);
  expect(await badExchange()).toBe(429);
}

const badBearer = () => mcp({ url: `http://127.0.0.1:${port}/mcp` }, 'tools/list', {}, {
  headers: { authorization: `Bearer sl_${randomBytes(32).toString('base64url')}` },
});

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sluice-lockouts-'));
  serve = spawnServe(['--port', '0', '--no-console', '--data-dir', dataDir]);
  port = (await waitForHandshake(dataDir)).port;
});
afterAll(async () => {
  serve.child.kill('SIGTERM');
  await exited(serve.child);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('sluice lockouts (against a running sluice serve)', () => {
  it('nothing locked: says so, and --json is an empty list', () => {
    expect(sluice('lockouts', 'list')).toMatchObject({ status: 0, stdout: 'nothing is locked out\n', stderr: '' });
    expect(json('lockouts', 'list')).toEqual([]);
  });

  it('an address locked out by failed exchanges is listed with its count and until when; cleared, its next exchange is heard again', async () => {
    const before = Date.now();
    await lockOutExchanges();
    const after = Date.now();
    const [lockout, ...others] = json('lockouts', 'list');
    expect(others).toEqual([]);
    expect(lockout).toEqual({
      id: 'exchange:127.0.0.1',
      limit: 'exchange',
      who: '127.0.0.1',
      locked: true,
      count: EXCHANGE.lockout.failures,
      until: expect.any(String),
    });
    const until = Date.parse(lockout.until);
    expect(until).toBeGreaterThanOrEqual(before + EXCHANGE.lockout.lockoutSeconds * 1000 - 1000);
    expect(until).toBeLessThanOrEqual(after + EXCHANGE.lockout.lockoutSeconds * 1000 + 1000);

    const table = sluice('lockouts', 'list').stdout.split('\n');
    expect(table[0]).toMatch(/^ID\s+LIMIT\s+WHO\s+STATE\s+COUNT\s+UNTIL$/);
    expect(table[1]).toMatch(new RegExp(`^exchange:127\\.0\\.0\\.1\\s+failed pairing exchanges\\s+127\\.0\\.0\\.1\\s+locked\\s+5\\s+${lockout.until}$`));

    expect(sluice('lockouts', 'clear', 'exchange:127.0.0.1')).toMatchObject({
      status: 0,
      stdout: 'cleared exchange:127.0.0.1\n',
      stderr: '',
    });
    expect(await badExchange()).toBe(404);
    expect(json('lockouts', 'list')).toEqual([expect.objectContaining({ id: 'exchange:127.0.0.1', locked: false, count: 1 })]);

    // The clear is an admin action in the activity log: the limit and the address, nothing else.
    const rows = json('activity', '--category', 'admin') as { action: string; outcome: string; detail: string; token_id: string | null }[];
    const cleared = rows.filter((row) => row.action === 'lockout.cleared');
    expect(cleared).toHaveLength(1);
    expect(cleared[0]).toMatchObject({ outcome: 'success', token_id: null });
    expect(JSON.parse(cleared[0]!.detail)).toEqual({ limit: 'exchange', who: '127.0.0.1' });
    expect(sluice('lockouts', '--data-dir', dataDir, 'clear', 'exchange:127.0.0.1').stdout).toBe('cleared exchange:127.0.0.1\n');
  });

  it('clear --all clears the address and the shared budget of tokens that do not verify; a later one finds nothing', async () => {
    await lockOutExchanges();
    for (let i = 0; i < UNVERIFIED_BEARERS.perWindow; i++) expect((await badBearer()).json.error.code).toBe(-33009);
    const refused = await badBearer();
    expect([refused.status, refused.json.error.code]).toEqual([429, -33010]);
    expect(json('lockouts', 'list')).toEqual([
      expect.objectContaining({ id: 'exchange:127.0.0.1', locked: true, count: EXCHANGE.lockout.failures }),
      expect.objectContaining({
        id: 'unverifiedBearers:*',
        limit: 'unverifiedBearers',
        who: '*',
        locked: true,
        count: UNVERIFIED_BEARERS.perWindow + 1,
      }),
    ]);
    expect(sluice('lockouts', 'list').stdout).toMatch(/^unverifiedBearers:\*\s+tokens that do not verify\s+all callers\s+locked\s+21\s/m);

    expect(sluice('lockouts', 'clear', '--all')).toMatchObject({
      status: 0,
      stdout: 'cleared exchange:127.0.0.1\ncleared unverifiedBearers:*\n',
    });
    expect(json('lockouts', 'list')).toEqual([]);
    expect(await badExchange()).toBe(404);
    const heard = await badBearer();
    expect([heard.status, heard.json.error.code]).toEqual([401, -33009]);
    sluice('lockouts', 'clear', '--all');
    expect(sluice('lockouts', 'clear', '--all')).toMatchObject({ status: 0, stdout: 'nothing was locked out\n' });
  });

  it('an id that is not locked out: one line on stderr, exit 1', () => {
    expect(sluice('lockouts', 'clear', 'exchange:10.0.0.1')).toMatchObject({
      status: 1,
      stdout: '',
      stderr: 'sluice: no such lockout (it may have ended)\n',
    });
  });

  it.each([
    [['lockouts'], 'usage: sluice lockouts list [--json] | lockouts clear ID|--all'],
    [['lockouts', 'lift'], 'unknown lockouts command "lift" (usage: sluice lockouts list [--json] | lockouts clear ID|--all)'],
    [['lockouts', 'list', 'extra'], 'usage: sluice lockouts list [--json] | lockouts clear ID|--all'],
    [['lockouts', 'clear'], 'usage: sluice lockouts clear ID|--all'],
    [['lockouts', 'clear', 'a', 'b'], 'usage: sluice lockouts clear ID|--all'],
    [['lockouts', 'clear', 'a', '--all'], 'usage: sluice lockouts clear ID|--all'],
  ])('a mistake on the command line (%j) prints one line and exits 2', (args, message) => {
    expect(sluice(...args)).toMatchObject({ status: 2, stdout: '', stderr: `sluice: ${message}\n` });
  });

  it('an unknown option is a usage error too', () => {
    const result = sluice('lockouts', 'clear', '--everything');
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('sluice: unknown option --everything (sluice lockouts clear --help lists the options)\n');
  });

  it('without a running application: exit 1, saying so', () => {
    const empty = mkdtempSync(join(tmpdir(), 'sluice-none-'));
    try {
      const result = runSluice(['lockouts', 'list', '--data-dir', empty]);
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/^sluice: Sluice is not running/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('sluice approvals --all: an approved sheet shows what was granted', () => {
  it('approved with another level, connections and expiry: --json carries the grant and the token; the text says it', () => {
    const link = pairingLink({ client: 'Granted CLI', scopes: 'fullAccess', challenge: challengeFor(createVerifier()) });
    expect(sluice('open-url', '--no-browser', link).status).toBe(0);
    const [sheet] = json('approvals') as { id: string }[];
    const approved = sluice('approve', sheet!.id, '--level', 'readOnly', '--connections', 'demo', '--expires', '7');
    expect(approved.status).toBe(0);
    const tokenId = /token (tok_[0-9a-f]{12}) minted/.exec(approved.stdout)?.[1];
    expect(tokenId).toBeDefined();

    // Without --all only what still waits; with it, the ended sheet and its grant.
    expect(json('approvals')).toEqual([]);
    const [ended, ...rest] = json('approvals', '--all') as Record<string, unknown>[];
    expect(rest).toEqual([]);
    expect(ended).toMatchObject({
      id: sheet!.id,
      kind: 'pairing',
      clientName: 'Granted CLI',
      requestedLevel: 'fullAccess',
      status: 'approved',
      granted: { level: 'readOnly', connections: ['demo'], expiresInDays: 7, tokenId },
    });
    const tokens = json('tokens', 'list') as { id: string; level: string; connections: unknown }[];
    expect(tokens.find((t) => t.id === tokenId)).toMatchObject({ level: 'readOnly', connections: ['demo'] });

    expect(sluice('approvals', '--all').stdout).toBe(
      [
        `${sheet!.id}  pairing  Granted CLI  approved`,
        '    asked for:     fullAccess',
        '    granted:       readOnly, connections demo, expires 7 d',
        `    token:         ${tokenId}`,
        '',
      ].join('\n'),
    );
  });
});
