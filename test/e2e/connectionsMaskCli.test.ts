import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, runSluice, spawnServe, waitForHandshake, type ServeProcess } from '../helpers/cli.js';
import { callTool } from '../helpers/testApp.js';

/**
 * `sluice connections mask` (issue 30): one change to a connection's private columns per call, into the
 * config file, or told to the running application so that the next statement is masked; bad input
 * exits 2 with one line and changes nothing.
 */

let dir: string;
let sqlitePath: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-mask-cli-'));
  sqlitePath = join(dir, 'people.db');
  const db = new Database(sqlitePath);
  db.exec("CREATE TABLE people (id INTEGER PRIMARY KEY, email TEXT); INSERT INTO people VALUES (1, 'ada.lovelace@example.org')");
  db.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const outcome = (result: ReturnType<typeof runSluice>) => ({ status: result.status, stdout: result.stdout, stderr: result.stderr });

describe('without a running application (the config file)', () => {
  let dataDir: string;
  const sluice = (...args: string[]) => runSluice([...args, '--data-dir', dataDir]);
  const policy = () =>
    (JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8')) as { connections: Array<{ id: string; columnPolicy?: unknown }> }).connections.find((c) => c.id === 'people')?.columnPolicy;

  beforeAll(() => {
    dataDir = mkdtempSync(join(dir, 'offline-'));
    expect(sluice('connections', 'add', '--name', 'People', '--sqlite', sqlitePath).status).toBe(0);
  });

  it('sets, lists and removes rules and exemptions', () => {
    expect(outcome(sluice('connections', 'mask', 'people', '--column', '*email*', '--action', 'hash'))).toEqual({
      status: 0,
      stdout: 'PATTERN  ACTION\n*email*  hash\nexempt tokens: none\n',
      stderr: '',
    });
    expect(sluice('connections', 'mask', 'people', '--column', '*EMAIL*', '--action', 'mask').status).toBe(0);
    expect(sluice('connections', 'mask', 'people', '--exempt', 'tok_owner').status).toBe(0);
    expect(policy()).toEqual({ rules: [{ pattern: '*EMAIL*', action: 'mask' }], exemptTokens: ['tok_owner'] });
    expect(JSON.parse(sluice('connections', 'mask', 'people', '--list', '--json').stdout)).toEqual(policy());
    expect(sluice('connections', 'mask', 'people', '--unexempt', 'tok_owner').status).toBe(0);
    expect(sluice('connections', 'mask', 'people', '--remove', '*email*').status).toBe(0);
    expect(policy()).toBeUndefined();
  });

  it.each([
    [['--column', 'users.email', '--action', 'mask'], 2, '"users.email" is not a column pattern: a column name or a glob with * (letters, digits, _ and $)'],
    [['--column', '*', '--action', 'hide'], 2, '"*" would match every column; name the columns'],
    [['--column', 'email', '--action', 'blur'], 2, '--action must be one of mask, hash, hide'],
    [['--column', 'email'], 2, '--action must be one of mask, hash, hide'],
    [['--action', 'hash'], 2, '--action goes with --column PATTERN'],
    [['--remove', 'email', '--exempt', 'tok_a'], 2, 'usage: sluice connections mask ID (--column PATTERN --action mask|hash|hide | --remove PATTERN | --exempt TOKEN_ID | --unexempt TOKEN_ID | --list [--json])'],
    [['--remove', 'phone'], 78, 'no rule for the pattern "phone"'],
    [['--exempt', 'not a token'], 78, 'the policy: exemptTokens must be an array of token ids'],
  ])('%j exits %i with one line and changes nothing', (args, status, message) => {
    const before = readFileSync(join(dataDir, 'config.json'), 'utf8');
    expect(outcome(sluice('connections', 'mask', 'people', ...args))).toEqual({ status, stdout: '', stderr: `sluice: ${message}\n` });
    expect(readFileSync(join(dataDir, 'config.json'), 'utf8')).toBe(before);
  });

  it('names an unknown connection', () => {
    expect(outcome(sluice('connections', 'mask', 'nobody', '--list'))).toEqual({ status: 78, stdout: '', stderr: 'sluice: no connection with id "nobody"\n' });
  });
});

describe('with a running application (the control socket)', () => {
  let dataDir: string;
  let serve: ServeProcess;
  let url: string;
  const sluice = (...args: string[]) => runSluice([...args, '--data-dir', dataDir]);

  beforeAll(async () => {
    dataDir = mkdtempSync(join(dir, 'running-'));
    serve = spawnServe(['--port', '0', '--no-console', '--data-dir', dataDir]);
    url = `http://127.0.0.1:${(await waitForHandshake(dataDir)).port}/mcp`;
    expect(sluice('connections', 'add', '--name', 'People', '--sqlite', sqlitePath).status).toBe(0);
  });
  afterAll(async () => {
    serve.child.kill('SIGTERM');
    await exited(serve.child);
  });

  it('masks the next statement at once, and an exempt token reads the value', async () => {
    const token = sluice('tokens', 'create', '--name', 'model', '--level', 'readOnly').stdout.trim();
    const auth = { headers: { authorization: `Bearer ${token}` } };
    const email = async () => (await callTool({ url }, 'execute_query', { connection_id: 'people', sql: 'SELECT email FROM people' }, auth)).json.result.structuredContent.rows[0][0];
    expect(await email()).toBe('ada.lovelace@example.org');
    expect(sluice('connections', 'mask', 'people', '--column', 'email', '--action', 'mask').status).toBe(0);
    expect(await email()).toBe('a***@e***.org');
    const id = (JSON.parse(sluice('tokens', 'list', '--json').stdout) as Array<{ id: string; name: string }>).find((t) => t.name === 'model')?.id as string;
    expect(sluice('connections', 'mask', 'people', '--exempt', id).stdout).toBe(`PATTERN  ACTION\nemail    mask\nexempt tokens: ${id}\n`);
    expect(await email()).toBe('ada.lovelace@example.org');
  });
});
