import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TOKENS_FILE, TokenStore } from '../../../src/auth/tokenStore.js';
import { tokens, type Remote } from '../../../src/cli/tokens.js';
import { UsageError } from '../../../src/cli/usageError.js';

let dir: string;
let output: string[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-tokens-cli-'));
  output = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    output.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

const stored = () => TokenStore.open(join(dir, TOKENS_FILE)).list();

async function run(...argv: string[]): Promise<string> {
  output = [];
  await tokens([...argv, '--data-dir', dir]);
  return output.join('');
}

describe('sluice tokens create', () => {
  it('prints the plaintext token alone and stores a read-only, all-connections, never-expiring token', async () => {
    const printed = await run('create', '--name', 'laptop');
    expect(printed).toMatch(/^sl_[A-Za-z0-9_-]{43}\n$/);
    const [record, ...others] = stored();
    expect(others).toEqual([]);
    expect(record).toMatchObject({ name: 'laptop', level: 'readOnly', connections: 'all' });
    expect(record).not.toHaveProperty('expiresAt');
    expect(TokenStore.open(join(dir, TOKENS_FILE)).verify(printed.trim(), Date.now()).ok).toBe(true);
  });

  it('takes the level, connections and expiry', async () => {
    await run('create', '--name', 'ci', '--level', 'fullAccess', '--connections', 'a,b', '--expires', '30');
    const [record] = stored();
    expect(record).toMatchObject({ level: 'fullAccess', connections: ['a', 'b'] });
    expect(Date.parse(record!.expiresAt!) - Date.parse(record!.createdAt)).toBe(30 * 86_400_000);
  });

  it('takes --tools: only those custom tools; a list that is not tool names is a usage error', async () => {
    await run('create', '--name', 'narrow', '--tools', 'order_status,refund.preview');
    expect(stored()[0]).toMatchObject({ tools: ['order_status', 'refund.preview'] });
    await expect(run('create', '--name', 'x', '--tools', 'a,,b')).rejects.toThrow(new UsageError('--tools must be custom tool names separated by commas, not "a,,b"'));
    await expect(run('create', '--name', 'x', '--tools', 'a b')).rejects.toBeInstanceOf(UsageError);
  });

  it('creates a missing support directory, private to the user', async () => {
    const nested = join(dir, 'support');
    await tokens(['create', '--name', 'x', '--data-dir', nested]);
    expect(statSync(nested).mode & 0o777).toBe(0o700);
    expect(statSync(join(nested, TOKENS_FILE)).mode & 0o777).toBe(0o600);
  });
});

describe('sluice tokens list', () => {
  it('prints JSON records without salt or hash', async () => {
    await run('create', '--name', 'laptop');
    const listed = JSON.parse(await run('list', '--json')) as Record<string, unknown>[];
    const [record] = stored();
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: record!.id, name: 'laptop', prefix: record!.prefix, level: 'readOnly' });
    expect(listed[0]).not.toHaveProperty('salt');
    expect(listed[0]).not.toHaveProperty('hash');
  });

  it('prints a table with a header and one row per token', async () => {
    await run('create', '--name', 'laptop', '--connections', 'main,logs');
    const [header, row, ...rest] = (await run('list')).trimEnd().split('\n');
    expect(rest).toEqual([]);
    expect(header!.split(/\s{2,}/)).toEqual([
      'ID',
      'NAME',
      'PREFIX',
      'LEVEL',
      'CONNECTIONS',
      'TOOLS',
      'CREATED',
      'LAST USED',
      'EXPIRES',
      'REVOKED',
    ]);
    const [record] = stored();
    const cells = row!.split(/\s{2,}/);
    expect(cells.slice(0, 5)).toEqual([record!.id, 'laptop', record!.prefix, 'readOnly', 'main,logs']);
    expect(cells.slice(5, 6)).toEqual(['all']);
    expect(cells.slice(7)).toEqual(['-', 'never', '-']);
  });

  it('prints only the header when there are no tokens, without creating the file', async () => {
    expect((await run('list')).trimEnd().split('\n')).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('sluice tokens revoke', () => {
  it('revokes the token in the file', async () => {
    await run('create', '--name', 'laptop');
    const [record] = stored();
    expect(await run('revoke', record!.id)).toBe(`revoked ${record!.id}\n`);
    expect(stored()[0]!.revokedAt).toEqual(expect.any(String));
  });

  it('fails with one line, not a usage error, for an unknown id', async () => {
    const failure = run('revoke', 'tok_000000000000');
    await expect(failure).rejects.toThrow('no token with id "tok_000000000000"');
    await expect(failure).rejects.not.toBeInstanceOf(UsageError);
  });
});

describe('usage mistakes', () => {
  it.each([
    [[]],
    [['rename']],
    [['toString']],
    [['create']],
    [['create', '--name', '']],
    [['create', '--name', 'x', '--level', 'root']],
    [['create', '--name', 'x', '--expires', '3']],
    [['create', '--name', 'x', '--connections', 'a,,b']],
    [['revoke']],
    [['revoke', 'tok_1', 'tok_2']],
  ])('tokens %j is a UsageError', async (argv) => {
    await expect(tokens([...argv, '--data-dir', dir])).rejects.toBeInstanceOf(UsageError);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('rejects unknown options and stray arguments as parse errors', async () => {
    await expect(tokens(['list', '--bogus', '--data-dir', dir])).rejects.toMatchObject({
      code: expect.stringMatching(/^ERR_PARSE_ARGS/),
    });
    await expect(tokens(['create', 'extra', '--name', 'x', '--data-dir', dir])).rejects.toMatchObject({
      code: expect.stringMatching(/^ERR_PARSE_ARGS/),
    });
  });
});

describe('with a running application', () => {
  it('goes through the remote and leaves the file alone', async () => {
    const record = {
      id: 'tok_0123456789ab',
      name: 'laptop',
      prefix: 'abcdefgh',
      level: 'readWrite',
      connections: ['main'],
      createdAt: '2025-03-01T12:00:00.000Z',
    };
    const calls: [string, Record<string, unknown>][] = [];
    const remote: Remote = async (method, params) => {
      calls.push([method, params]);
      if (method === 'tokens.create') return { plaintext: 'sl_from_app' };
      if (method === 'tokens.list') return [{ ...record, salt: 'ab', hash: 'cd' }];
      return params.id === record.id ? { ...record, revokedAt: '2025-03-01T13:00:00.000Z' } : null;
    };
    const withRemote = async (...argv: string[]) => {
      output = [];
      await tokens([...argv, '--data-dir', dir], { remote });
      return output.join('');
    };

    expect(await withRemote('create', '--name', 'laptop', '--level', 'readWrite', '--connections', 'main')).toBe(
      'sl_from_app\n',
    );
    expect(JSON.parse(await withRemote('list', '--json'))).toEqual([record]);
    expect(await withRemote('list')).toContain('tok_0123456789ab  laptop');
    expect(await withRemote('revoke', record.id)).toBe(`revoked ${record.id}\n`);
    await expect(withRemote('revoke', 'tok_ffffffffffff')).rejects.toThrow('no token with id');

    expect(calls).toEqual([
      ['tokens.create', { name: 'laptop', level: 'readWrite', connections: ['main'], expiresInDays: null }],
      ['tokens.list', {}],
      ['tokens.list', {}],
      ['tokens.revoke', { id: record.id }],
      ['tokens.revoke', { id: 'tok_ffffffffffff' }],
    ]);
    expect(existsSync(join(dir, TOKENS_FILE))).toBe(false);
  });
});
