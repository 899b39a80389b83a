import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsoleLink } from '../helpers/consoleClient.js';
import { exited, SLUICE_BIN } from '../helpers/cli.js';
import { eventually } from '../helpers/polling.js';
import { callTool, mcp } from '../helpers/testApp.js';

/**
 * `sluice install` on Linux, for real: the desktop file and `xdg-mime`, then the reference client's
 * whole flow with the link opened by `xdg-open` — no server running, so the handler starts one — and a
 * browser that is a recording script registered as the user's default, approved through the console
 * page it was sent to; then `sluice uninstall`.
 */
const TOOLS = ['xdg-open', 'xdg-mime', 'desktop-file-validate'];
const missing = TOOLS.filter((tool) => spawnSync('sh', ['-c', 'command -v "$1"', 'sh', tool]).status !== 0);
if (missing.length > 0) {
  const why = `${missing.join(', ')} not installed (apt-get install xdg-utils desktop-file-utils)`;
  if (process.env.CI) throw new Error(`schemeHandler: ${why}`);
  console.log(`schemeHandler: skipped, ${why}`);
}

let root: string;
let dataDir: string;
let env: NodeJS.ProcessEnv;
let browserLog: string;
let pair: ReturnType<typeof spawn> | undefined;

const sluice = (...args: string[]) => spawnSync(process.execPath, [SLUICE_BIN, ...args], { encoding: 'utf8', env, timeout: 20_000 });
const run = (command: string, ...args: string[]) => spawnSync(command, args, { encoding: 'utf8', env, timeout: 20_000 });
const desktopFile = () => join(root, 'data', 'applications', 'sluice-url-handler.desktop');

beforeAll(() => {
  if (missing.length > 0) return;
  root = mkdtempSync(join(tmpdir(), 'sluice-scheme-'));
  dataDir = join(root, 'sluice');
  browserLog = join(root, 'browser.log');
  // A session of the generic desktop (xdg-open's own launcher): a display is named, no desktop
  // environment is detectable, and every XDG directory is the test's own.
  const { XDG_CURRENT_DESKTOP, DESKTOP_SESSION, KDE_FULL_SESSION, GNOME_DESKTOP_SESSION_ID, WAYLAND_DISPLAY, BROWSER, SLUICE_HOME, ...rest } = process.env;
  void [XDG_CURRENT_DESKTOP, DESKTOP_SESSION, KDE_FULL_SESSION, GNOME_DESKTOP_SESSION_ID, WAYLAND_DISPLAY, BROWSER, SLUICE_HOME];
  env = {
    ...rest,
    HOME: join(root, 'home'),
    XDG_DATA_HOME: join(root, 'data'),
    XDG_CONFIG_HOME: join(root, 'config'),
    XDG_DATA_DIRS: join(root, 'system-data'),
    XDG_CONFIG_DIRS: join(root, 'system-config'),
    DISPLAY: ':sluice-test',
    BROWSER: join(root, 'browser'),
    DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(root, 'no-bus')}`,
  };
  for (const dir of ['home', 'data/applications', 'config', 'system-data', 'system-config']) mkdirSync(join(root, dir), { recursive: true });
  // The system's MIME database (so xdg-open knows an .html file), without the system's applications.
  if (existsSync('/usr/share/mime')) symlinkSync('/usr/share/mime', join(root, 'system-data', 'mime'));
  // The "browser", the default for HTML and http (and $BROWSER, xdg-open's last resort): records what it is asked to open.
  const browser = join(root, 'browser');
  writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${browserLog}'\n`);
  chmodSync(browser, 0o755);
  writeFileSync(
    join(root, 'data', 'applications', 'test-browser.desktop'),
    `[Desktop Entry]\nType=Application\nName=Test browser\nExec=${browser} %u\nMimeType=text/html;x-scheme-handler/http;\n`,
  );
  expect(run('xdg-mime', 'default', 'test-browser.desktop', 'text/html', 'x-scheme-handler/http').status).toBe(0);
});

afterAll(async () => {
  if (missing.length > 0) return;
  if (pair && pair.exitCode === null) pair.kill();
  const handshake = join(dataDir, 'mcp-handshake.json');
  if (existsSync(handshake)) {
    process.kill((JSON.parse(readFileSync(handshake, 'utf8')) as { pid: number }).pid, 'SIGTERM');
    await eventually(() => (existsSync(handshake) ? undefined : true), 'the server to stop', 15_000);
  }
  rmSync(root, { recursive: true, force: true });
});

describe.skipIf(missing.length > 0)('sluice:// links on Linux, through xdg-open', () => {
  it('sluice install writes the desktop file and makes it the default for x-scheme-handler/sluice', () => {
    const installed = sluice('install', '--data-dir', dataDir);
    expect(installed.stderr).toBe('');
    expect(installed.status).toBe(0);
    const handler = `${process.execPath} ${SLUICE_BIN} open-url --data-dir ${dataDir} --`;
    expect(installed.stdout).toBe(
      [
        `wrote ${desktopFile()}`,
        'ran xdg-mime default sluice-url-handler.desktop x-scheme-handler/sluice',
        `ran update-desktop-database ${join(root, 'data', 'applications')}`,
        `sluice:// links now run: ${handler} URL`,
        '',
      ].join('\n'),
    );
    expect(readFileSync(desktopFile(), 'utf8')).toContain(`\nExec=${handler} %u\n`);
    expect(run('xdg-mime', 'query', 'default', 'x-scheme-handler/sluice').stdout).toBe('sluice-url-handler.desktop\n');
    const validated = run('desktop-file-validate', desktopFile());
    expect([validated.status, validated.stdout, validated.stderr]).toEqual([0, '', '']);
    // Again: the same files, the same answer.
    const again = sluice('install', '--data-dir', dataDir);
    expect([again.status, again.stdout]).toEqual([0, installed.stdout]);
  });

  it('sluice pair opens its link with xdg-open; the handler starts Sluice and shows the sheet; approved, the token works', async () => {
    expect(existsSync(join(dataDir, 'mcp-handshake.json'))).toBe(false);
    pair = spawn(process.execPath, [SLUICE_BIN, 'pair', '--client', 'Desktop Link', '--print-token', '--data-dir', dataDir], { env });
    let stdout = '';
    let stderr = '';
    pair.stdout!.on('data', (chunk) => (stdout += chunk));
    pair.stderr!.on('data', (chunk) => (stderr += chunk));

    // The handler started the server, raised the sheet, and sent the browser to the console.
    const opened = await eventually(() => (existsSync(browserLog) ? readFileSync(browserLog, 'utf8') : undefined), 'the browser to be opened', 45_000);
    const page = join(dataDir, 'console-open.html');
    expect(opened).toBe(`${page}\n`);
    const link = /url=(http:\/\/127\.0\.0\.1:\d+\/open\?secret=[\w-]+)">/.exec(readFileSync(page, 'utf8'))?.[1];
    expect(link).toBeDefined();
    const console_ = await openConsoleLink(link!);
    type Sheet = { id: string; clientName: string; status: string };
    let sheet: Sheet | undefined;
    const deadline = Date.now() + 15_000;
    while (!sheet && Date.now() < deadline) {
      const { sheets } = (await console_.state()) as { sheets: Sheet[] };
      sheet = sheets.find((s) => s.clientName === 'Desktop Link' && s.status === 'awaitingApproval');
    }
    if (!sheet) throw new Error('no approval sheet in the console');
    expect(sheet).toMatchObject({ clientName: 'Desktop Link', redirect: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/callback$/) });
    await console_.command('approvals.approve', { id: sheet.id, level: 'readOnly' });

    const exit = await exited(pair as never);
    expect(stderr).toContain(`sluice approve ${sheet.id}`);
    expect(exit.code).toBe(0);
    const token = stdout.trim();
    expect(token).toMatch(/^sl_[A-Za-z0-9_-]{43}$/);
    const { port } = JSON.parse(readFileSync(join(dataDir, 'mcp-handshake.json'), 'utf8')) as { port: number };
    const server = { url: `http://127.0.0.1:${port}/mcp` };
    const auth = { headers: { authorization: `Bearer ${token}` } };
    const tools = await mcp(server, 'tools/list', {}, auth);
    expect(tools.status).toBe(200);
    expect((tools.json.result.tools as { name: string }[]).map((tool) => tool.name)).toContain('list_connections');
    const listed = await callTool(server, 'list_connections', {}, auth);
    expect(listed.json.result.structuredContent.connections[0].id).toBe('demo');
    // The server the handler started logs to sluice.log; the console's one-time link is not in it.
    expect(readFileSync(join(dataDir, 'sluice.log'), 'utf8')).not.toContain('secret=');
  }, 90_000);

  it('sluice uninstall removes the desktop file and the association; a second run has nothing to remove', () => {
    const removed = sluice('uninstall');
    expect(removed.status).toBe(0);
    expect(removed.stdout).toBe(
      [
        `removed ${desktopFile()}`,
        `wrote ${join(root, 'config', 'mimeapps.list')}`,
        `ran update-desktop-database ${join(root, 'data', 'applications')}`,
        '',
      ].join('\n'),
    );
    expect(existsSync(desktopFile())).toBe(false);
    expect(run('xdg-mime', 'query', 'default', 'x-scheme-handler/sluice').stdout).toBe('');
    // The test's own browser association is still there.
    expect(readFileSync(join(root, 'config', 'mimeapps.list'), 'utf8')).toBe(
      '\n[Default Applications]\ntext/html=test-browser.desktop\nx-scheme-handler/http=test-browser.desktop\n',
    );
    expect(sluice('uninstall').stdout).toBe('nothing to remove: the sluice scheme is not registered for this user\n');
  });
});
