#!/usr/bin/env node
// The published package, as a user gets it: `npm pack`, `npm install -g` of the tarball into an empty
// prefix, then the installed `sluice serve` with a fresh home: its console pages and every file they
// load, the inspector, a tool call over MCP, the README's MCP Inspector command, and a clean SIGTERM.
// Prints one line per check and `package: N passed, N failed`; exits 1 on the first failure.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const MODERN = '2026-07-28';
/** The README's command, word for word: the check fails when the two drift apart. */
const INSPECTOR_COMMAND = ['npx', '-y', '-p', 'node@22', '-p', '@modelcontextprotocol/inspector@2.12.0', 'mcp-inspector', '--cli'];
/** What a user's install must not carry. */
const NOT_SHIPPED = [
  /^(test|bench|docs|scripts|eslint|spec|\.ci|\.github|test-results|node_modules)\//,
  /(^|\/)screenshots?\//,
  /\.test\.[cm]?[jt]s$/,
  /\.ts$/,
  /\.map$/,
  /^dist\/(?!src\/|machines\/)/,
];
const ASSET_TYPES = { '.js': 'text/javascript', '.css': 'text/css' };

const say = (line) => process.stdout.write(`${line}\n`);
const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

class CheckFailed extends Error {}
function expect(condition, message) {
  if (!condition) throw new CheckFailed(message);
}

/** Runs a program to its end; rejects with its stderr when it fails or outlives `timeoutMs`. */
function run(command, args, { cwd, env, timeoutMs }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else reject(new CheckFailed(`${command} ${args[0]} ended with ${signal ?? `exit code ${code}`}:\n${(stderr.trim() || stdout.trim()).slice(-4000)}`));
    });
  });
}

/** `sluice serve`'s start-up lines, once the last of them is printed. */
function startupLines(child, stderr, timeoutMs) {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new CheckFailed(`sluice serve printed no start-up lines in ${seconds(timeoutMs)}`)), timeoutMs);
    child.stdout.on('data', (chunk) => {
      text += chunk;
      if (/desktop notifications: .*\n/.test(text)) {
        clearTimeout(timer);
        resolve(text);
      }
    });
    child.on('exit', (code) => reject(new CheckFailed(`sluice serve exited (${code}) before it was serving:\n${stderr()}`)));
  });
}

/** The files a page or module loads: its scripts, styles and imports, as paths on the console. */
function referencesOf(path, type, text) {
  const found =
    type === 'text/html'
      ? [...text.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]+\.(?:js|css))"/g)]
      : type === 'text/css'
        ? [...text.matchAll(/(?:@import\s+|url\()\s*['"]?([^'")\s]+)/g)].filter(([, ref]) => !ref.startsWith('data:'))
        : [
            ...text.matchAll(/\b(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g),
            ...text.matchAll(/\bimport\s*\(?\s*['"]([^'"]+)['"]/g),
          ];
  return found.map(([, ref]) => {
    // A module's specifier must be a path; a page may also name a file beside it. Nothing leaves the console.
    const local = type === 'text/javascript' ? /^\.{0,2}\//.test(ref) : !/^([a-z][a-z0-9+.-]*:|\/\/)/i.test(ref);
    expect(local, `${path} loads "${ref}", which the console does not serve`);
    return new URL(ref, `http://console${path}`).pathname;
  });
}

async function get(url, headers = {}) {
  const response = await fetch(url, { headers });
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
}

/** Every page answers 200 HTML, and every file reachable from them answers 200 with its type. */
async function crawlConsole(origin, pages) {
  const seen = new Set();
  const queue = [];
  for (const page of pages) {
    const { status, type, text } = await get(`${origin}${page}`);
    const shown = page.replace(/secret=[^&]+/, 'secret=…');
    expect(status === 200 && type.startsWith('text/html'), `${shown} answered ${status} ${type}`);
    queue.push(...referencesOf(new URL(page, origin).pathname, 'text/html', text));
  }
  while (queue.length > 0) {
    const path = queue.shift();
    if (seen.has(path)) continue;
    seen.add(path);
    const wanted = ASSET_TYPES[path.slice(path.lastIndexOf('.'))];
    const { status, type, text } = await get(`${origin}${path}`);
    expect(status === 200 && wanted !== undefined && type.startsWith(wanted), `${path} answered ${status} ${type}`);
    queue.push(...referencesOf(path, wanted, text));
  }
  return seen;
}

function modernToolCall(name) {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name,
      arguments: {},
      _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} },
    },
  };
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name },
    body: JSON.stringify(body),
  };
}

const connectionIds = (result) => (result?.structuredContent?.connections ?? []).map((connection) => connection.id).join(',');

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'sluice-package-'));
  const prefix = join(work, 'prefix');
  const home = join(work, 'home');
  mkdirSync(home);
  const npmCache = (await run('npm', ['config', 'get', 'cache'], { cwd: ROOT, env: process.env, timeoutMs: 30_000 })).stdout.trim();
  // Sluice sees only the fresh home; npm keeps the machine's cache and settings.
  const sluiceEnv = { ...process.env, HOME: home };
  delete sluiceEnv.SLUICE_HOME;
  delete sluiceEnv.XDG_CONFIG_HOME;
  const npxEnv = { ...sluiceEnv, npm_config_cache: npmCache, npm_config_userconfig: join(process.env.HOME ?? home, '.npmrc') };
  const sluice = join(prefix, 'bin', 'sluice');
  const supportDir = join(home, '.config', 'sluice');
  const handshake = join(supportDir, 'mcp-handshake.json');
  let server;
  let serverStderr = '';
  let passed = 0;
  let current = '';
  const step = async (name, body) => {
    current = name;
    const started = Date.now();
    const detail = await body();
    passed += 1;
    say(`ok ${passed} ${name}${detail ? `: ${detail}` : ''} (${seconds(Date.now() - started)})`);
  };

  try {
    let tarball;
    await step('npm pack: a lean package', async () => {
      const { stdout } = await run('npm', ['pack', '--pack-destination', work, '--json'], { cwd: ROOT, env: process.env, timeoutMs: 300_000 });
      const [packed] = JSON.parse(stdout.slice(stdout.indexOf('[')));
      const paths = packed.files.map((file) => file.path);
      const stray = paths.filter((path) => NOT_SHIPPED.some((pattern) => pattern.test(path)));
      expect(stray.length === 0, `the package carries files a user never needs: ${stray.slice(0, 10).join(', ')}`);
      // tsc never deletes: a module whose source is gone would ship from an old build.
      const orphans = paths.filter((path) => /^dist\/.*\.js$/.test(path) && !['.ts', '.js'].some((ext) => existsSync(join(ROOT, path.slice(5, -3) + ext))));
      expect(orphans.length === 0, `built files without a source (delete dist/ and build again): ${orphans.join(', ')}`);
      for (const needed of [PACKAGE.bin.sluice, 'inspector/index.html', 'src/console/public/index.html', 'src/core/shared/visibleText.js'])
        expect(paths.includes(needed), `the package lacks ${needed}`);
      tarball = join(work, packed.filename);
      return `${packed.filename}, ${kib(packed.size)} packed, ${kib(packed.unpackedSize)} unpacked, ${packed.entryCount} files`;
    });

    await step('npm install -g of the tarball into an empty prefix', async () => {
      await run('npm', ['install', '-g', '--prefix', prefix, '--allow-scripts=better-sqlite3', '--no-audit', '--no-fund', tarball], {
        cwd: work,
        env: process.env,
        timeoutMs: 600_000,
      });
      expect(existsSync(sluice), `${sluice} was not installed`);
    });

    let mcpUrl;
    let consoleLink;
    await step('sluice serve starts in a fresh home', async () => {
      server = spawn(sluice, ['serve', '--port', '0', '--console-port', '0', '--no-notify'], { cwd: work, env: sluiceEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      server.stderr.on('data', (chunk) => (serverStderr += chunk));
      const lines = await startupLines(server, () => serverStderr, 60_000);
      mcpUrl = /^Sluice is serving MCP at (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(lines)?.[1];
      consoleLink = /^ {2}console: (http:\/\/127\.0\.0\.1:\d+\/open\?secret=\S+) /m.exec(lines)?.[1];
      const printedDir = /^ {2}support directory: (.+)$/m.exec(lines)?.[1];
      expect(mcpUrl && consoleLink, 'serve did not print the MCP URL and the console link');
      expect(printedDir === supportDir, `serve used ${printedDir}, not ${supportDir}`);
      const { port } = JSON.parse(readFileSync(handshake, 'utf8'));
      expect(String(port) === new URL(mcpUrl).port, `the handshake file names port ${port}, serve printed ${mcpUrl}`);
      return mcpUrl;
    });

    const link = new URL(consoleLink);
    await step('console and inspector pages, and every file they load, answer 200', async () => {
      const files = await crawlConsole(link.origin, ['/signin', `${link.pathname}${link.search}`, '/', '/inspector/']);
      for (const folder of ['/core/', '/shared/', '/inspector/'])
        expect([...files].some((path) => path.startsWith(folder)), `no page loads anything under ${folder}`);
      return `4 pages, ${files.size} files`;
    });

    await step('console sign-in with the printed link, then its state and the inspector’s machines', async () => {
      const signIn = await fetch(`${link.origin}/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: link.origin },
        body: JSON.stringify({ secret: link.searchParams.get('secret') }),
      });
      expect(signIn.status === 200, `POST /api/session answered ${signIn.status}`);
      const authorization = `Bearer ${(await signIn.json()).session}`;
      const state = await get(`${link.origin}/api/state`, { authorization });
      expect(state.status === 200 && state.type.startsWith('application/json'), `GET /api/state answered ${state.status} ${state.type}`);
      const machines = await get(`${link.origin}/api/inspector/machines`, { authorization });
      const names = Object.keys(JSON.parse(machines.text).machines ?? {});
      expect(machines.status === 200 && names.length > 0, `GET /api/inspector/machines answered ${machines.status} with ${names.length} machines`);
      return `${names.length} machines`;
    });

    let token;
    await step('sluice tokens create, then tools/call list_connections over MCP', async () => {
      token = (await run(sluice, ['tokens', 'create', '--name', 'package-check'], { cwd: work, env: sluiceEnv, timeoutMs: 30_000 })).stdout.trim();
      expect(/^sl_[A-Za-z0-9_-]{43}$/.test(token), 'sluice tokens create did not print a token alone');
      const request = modernToolCall('list_connections');
      const response = await fetch(mcpUrl, { ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } });
      const answer = await response.json();
      expect(response.status === 200 && answer.result?.isError === false, `list_connections answered ${response.status} ${JSON.stringify(answer.error ?? {})}`);
      expect(connectionIds(answer.result) === 'demo', `list_connections listed "${connectionIds(answer.result)}", not "demo"`);
      const version = answer.result._meta?.['io.modelcontextprotocol/serverInfo']?.version;
      expect(version === PACKAGE.version, `serverInfo.version is ${version}, not ${PACKAGE.version}`);
    });

    await step('the README’s MCP Inspector command calls list_connections', async () => {
      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
      expect(readme.includes(INSPECTOR_COMMAND.join(' ')), `README.md does not show "${INSPECTOR_COMMAND.join(' ')}"`);
      const [npx, ...args] = INSPECTOR_COMMAND;
      const { stdout } = await run(
        npx,
        [...args, mcpUrl, '--transport', 'http', '--header', `Authorization: Bearer ${token}`, '--method', 'tools/call', '--tool-name', 'list_connections'],
        { cwd: work, env: npxEnv, timeoutMs: 300_000 },
      );
      expect(connectionIds(JSON.parse(stdout)) === 'demo', `the Inspector listed "${connectionIds(JSON.parse(stdout))}", not "demo"`);
    });

    await step('SIGTERM stops it cleanly and removes the handshake file', async () => {
      expect(existsSync(handshake), 'the handshake file is missing while Sluice runs');
      const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
      server.kill('SIGTERM');
      const timeout = new Promise((resolve) => setTimeout(() => resolve(undefined), 15_000).unref());
      const end = await Promise.race([exited, timeout]);
      expect(end !== undefined, 'sluice serve was still running 15 s after SIGTERM');
      expect(end.code === 0, `sluice serve exited with ${end.signal ?? `code ${end.code}`}:\n${serverStderr}`);
      expect(serverStderr.endsWith('sluice: SIGTERM received, stopping\n'), `stderr did not end with the stop:\n${serverStderr}`);
      expect(!existsSync(handshake), 'the handshake file is still there');
    });
    await step('sluice install, then a sluice:// link opened with xdg-open pairs without a command typed', async () => {
      // test/e2e/schemeHandler.test.ts, run against the installed package's CLI instead of this checkout's.
      const main = join(prefix, 'lib', 'node_modules', PACKAGE.name, PACKAGE.bin.sluice);
      const { stdout } = await run('npx', ['vitest', 'run', 'test/e2e/schemeHandler.test.ts'], {
        cwd: ROOT,
        env: { ...process.env, CI: 'true', NO_COLOR: '1', SLUICE_CLI_UNDER_TEST: main },
        timeoutMs: 180_000,
      });
      return /Tests\s+(\d+ passed)/.exec(stdout)?.[1];
    });
    say(`package: ${passed} passed, 0 failed`);
  } catch (error) {
    say(`not ok ${passed + 1} ${current}: ${error instanceof CheckFailed ? error.message : error.stack}`);
    say(`package: ${passed} passed, 1 failed`);
    process.exitCode = 1;
  } finally {
    if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
