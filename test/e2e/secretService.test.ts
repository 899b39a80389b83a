import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS_FILE, TokenStore } from '../../src/auth/tokenStore.js';
import { CONFIG_FILE } from '../../src/db/connections/savedConnections.js';
import { bindingPath } from '../../src/platform/credentialStore.js';
import { exited, runSluice, SLUICE_BIN, waitForHandshake } from '../helpers/cli.js';
import { callTool } from '../helpers/testApp.js';

/**
 * The secrets against a real Secret Service: gnome-keyring on a private session D-Bus
 * (dbus-run-session), one throwaway HOME for the application and one for the pairing client. Proves
 * that token secrets, database passwords and a paired client's token land in the keyring and not in
 * the files, and that they move from the files into the keyring and back.
 */
const tools = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool'];
const missing = tools.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
if (missing.length > 0) {
  const reason = `needs ${missing.join(', ')} (apt-get install dbus gnome-keyring libsecret-tools)`;
  if (process.env.CI) throw new Error(`secretService.test.ts ${reason}`);
  console.warn(`skipping secretService.test.ts: it ${reason}`);
}

/** Starts gnome-keyring, unlocked with the password on stdin, then runs the command on the same bus. */
const IN_SESSION = 'gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"';
const KEYRING_PASSWORD = 'throwaway keyring';

let root: string;
let dataDir: string;

/** The environment of a process in `home`'s session: its own HOME and runtime dir, no SLUICE_SECRETS. */
function sessionEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_RUNTIME_DIR: join(home, 'run'), ...extra };
  for (const name of ['SLUICE_SECRETS', 'XDG_DATA_HOME', 'XDG_CONFIG_HOME', 'DBUS_SESSION_BUS_ADDRESS']) {
    if (!(name in extra)) delete env[name];
  }
  return env;
}

function newHome(name: string): string {
  const home = join(root, name);
  mkdirSync(join(home, 'run'), { recursive: true, mode: 0o700 });
  return home;
}

const sessionArgs = (command: string[]) => ['--', 'sh', '-c', IN_SESSION, 'sh', ...command];

/** Runs `command` to its end in a session of `home`'s keyring. */
function inSession(home: string, command: string[], extra: NodeJS.ProcessEnv = {}) {
  return spawnSync('dbus-run-session', sessionArgs(command), {
    input: KEYRING_PASSWORD,
    encoding: 'utf8',
    env: sessionEnv(home, extra),
    timeout: 20_000,
  });
}

/** Starts `command` in a session of `home`'s keyring; its output collects as it comes. */
function startInSession(home: string, command: string[]) {
  const child = spawn('dbus-run-session', sessionArgs(command), { env: sessionEnv(home) });
  child.stdin.end(KEYRING_PASSWORD);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return { child, stdout: () => stdout, stderr: () => stderr };
}

/** Every credential of service "sluice" in `home`'s keyring, read back through the binding. */
function keyringOf(home: string): Record<string, string> {
  const read = `const k = require(${JSON.stringify(bindingPath())});
    const all = k.findCredentials('sluice');
    process.stdout.write(JSON.stringify(Object.fromEntries(all.map((c) => [c.account, c.password]))));`;
  const result = inSession(home, [process.execPath, '-e', read]);
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Record<string, string>;
}

/** What Sluice said on stderr, without the session bus's own chatter. */
const said = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => line.startsWith('sluice: '))
    .map((line) => `${line}\n`)
    .join('');

const sluice = (...args: string[]) => runSluice([...args, '--data-dir', dataDir]);
const files = () => readFileSync(join(dataDir, TOKENS_FILE), 'utf8') + readFileSync(join(dataDir, CONFIG_FILE), 'utf8');

describe.skipIf(missing.length > 0)('secrets in a real Secret Service (gnome-keyring)', () => {
  let appHome: string;
  let clientHome: string;
  let oldToken: string;
  let serve: ReturnType<typeof startInSession>;
  let url: string;
  let servePid: number;

  /** Stops `sluice serve` itself (a signal to dbus-run-session would leave it running); its session ends with it. */
  async function stopServe() {
    if (serve.child.exitCode !== null) return;
    process.kill(servePid, 'SIGTERM');
    await exited(serve.child as never);
  }

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'sluice-keyring-'));
    dataDir = join(root, 'data');
    appHome = newHome('app');
    clientHome = newHome('client');
    // Made in the files, as before this release (the suite runs with SLUICE_SECRETS=file).
    oldToken = sluice('tokens', 'create', '--name', 'from the file').stdout.trim();
    expect(sluice('connections', 'add', '--name', 'shop', '--url', 'postgres://app:pw-OLD@127.0.0.1:5432/shop', '--no-check').status).toBe(0);
    expect(files()).toContain('pw-OLD');
    expect(files()).toContain('"salt"');
  });
  afterAll(async () => {
    if (serve) await stopServe();
    rmSync(root, { recursive: true, force: true });
  });

  it('at start, the application moves the secrets from the files into the keyring and says where they are', async () => {
    serve = startInSession(appHome, [process.execPath, SLUICE_BIN, 'serve', '--no-notify', '--port', '0', '--no-console', '--data-dir', dataDir]);
    const handshake = await waitForHandshake(dataDir);
    url = `http://127.0.0.1:${handshake.port}/mcp`;
    servePid = handshake.pid;
    const keyring = 'the Secret Service keyring (service "sluice")';
    expect(said(serve.stderr())).toBe(
      `sluice: moved 1 database password from config.json into ${keyring}\n` +
        `sluice: moved 1 token secret from tokens.json into ${keyring}\n` +
        `sluice: secrets are in ${keyring}\n`,
    );
    expect(files()).not.toContain('pw-OLD');
    expect(files()).not.toContain('"salt"');
    const auth = { headers: { authorization: `Bearer ${oldToken}` } };
    expect((await callTool({ url }, 'list_connections', {}, auth)).status).toBe(200);
  });

  it('new tokens and passwords go to the keyring, and a paired client keeps its token in its own', async () => {
    const minted = sluice('tokens', 'create', '--name', 'minted in the keyring').stdout.trim();
    expect(sluice('connections', 'add', '--name', 'shop2', '--url', 'postgres://app:pw-NEW@127.0.0.1:5432/shop2', '--no-check').status).toBe(0);

    const pair = startInSession(clientHome, [process.execPath, SLUICE_BIN, 'pair', '--client', 'Keyring Ext', '--data-dir', dataDir]);
    let sheet: { id: string } | undefined;
    while (!sheet) {
      sheet = (JSON.parse(sluice('approvals', '--json').stdout) as { id: string }[])[0];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(sluice('approve', sheet.id).status).toBe(0);
    expect(await exited(pair.child as never)).toEqual({ code: 0, signal: null });
    expect(pair.stdout()).toBe('');
    expect(pair.stderr()).toContain(
      'Paired. The token is in the Secret Service keyring (service "sluice"), account "Keyring Ext"; ' +
        'an extension reads it back with new Entry("sluice", "Keyring Ext").getPassword() (@napi-rs/keyring).\n',
    );
    const lookup = inSession(clientHome, ['secret-tool', 'lookup', 'service', 'sluice', 'username', 'Keyring Ext']);
    const paired = lookup.stdout;
    expect(paired).toMatch(/^sl_[A-Za-z0-9_-]{43}$/);
    expect(keyringOf(clientHome)).toEqual({ 'Keyring Ext': paired });

    for (const token of [minted, paired]) {
      const res = await callTool({ url }, 'list_connections', {}, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      expect(files()).not.toContain(token);
    }
    expect(files()).not.toContain('pw-NEW');

    await stopServe();
    expect(serve.child.exitCode).toBe(0);
    const stored = keyringOf(appHome);
    const records = (JSON.parse(readFileSync(join(dataDir, TOKENS_FILE), 'utf8')) as { tokens: { id: string }[] }).tokens;
    expect(Object.keys(stored).sort()).toEqual(
      [...records.map((r) => `token:${r.id}@${dataDir}`), `connection:shop@${dataDir}`, `connection:shop2@${dataDir}`].sort(),
    );
    expect(stored[`connection:shop@${dataDir}`]).toBe('pw-OLD');
    expect(stored[`connection:shop2@${dataDir}`]).toBe('pw-NEW');
    for (const secret of Object.values(stored)) expect(files()).not.toContain(secret.split(':')[1] ?? secret);
  });

  it('SLUICE_SECRETS=file moves every secret back into the files, where a machine without a keyring finds them', () => {
    const tokens = inSession(appHome, [process.execPath, SLUICE_BIN, 'tokens', 'list', '--data-dir', dataDir], { SLUICE_SECRETS: 'file' });
    expect(said(tokens.stderr)).toBe('sluice: moved 3 token secrets from the Secret Service keyring (service "sluice") into tokens.json\n');
    const connections = inSession(appHome, [process.execPath, SLUICE_BIN, 'connections', 'list', '--data-dir', dataDir], {
      SLUICE_SECRETS: 'file',
    });
    expect(said(connections.stderr)).toBe(
      'sluice: moved 2 database passwords from the Secret Service keyring (service "sluice") into config.json\n',
    );
    expect(keyringOf(appHome)).toEqual({});
    expect(files()).toContain('pw-OLD');
    expect(files()).toContain('pw-NEW');
    // Read with no store at all, as on the machine the support directory moves to.
    expect(TokenStore.open(join(dataDir, TOKENS_FILE)).verify(oldToken, Date.now()).ok).toBe(true);
  });
});
