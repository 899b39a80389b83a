import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EXCHANGE } from '../core/contract.js';
import { readHandshake } from '../core/handshake.js';
import { type PermissionLevel, permissionLevels } from '../auth/levels.js';
import type { ApprovalSheet, Refusal } from '../runtime/pairingService.js';
import { challengeFor, createVerifier } from '../pairing/pkce.js';
import { currentTarget, osSchemeHost, schemeRegistrar } from '../platform/schemeRegistration.js';
import { SERVE_LOG } from '../platform/supportDir.js';
import { openWithOs } from '../platform/urlOpener.js';
import { callControl } from './controlClient.js';
import { CREDENTIAL_SERVICE, osCredentialStore } from '../platform/credentialStore.js';
import { probeCredentialStore } from '../platform/credentialProbe.js';
import { dataDirOption, supportDirOf } from './dataDirOption.js';
import { sluiceProgram } from './sluiceProgram.js';
import { SERVER_START_MS } from './startServer.js';
import { UsageError } from './usageError.js';

type Callback = { code: string } | { error: string };

/** Beyond a server's start, how long the handler the OS ran may take to raise the sheet. */
const SHEET_WAIT_MS = 15_000;

/** Listens on a loopback port for the one callback whose `state` is ours; anything else is refused. */
async function listenForCallback(state: string): Promise<{ redirect: string; callback: Promise<Callback>; close(): void }> {
  let deliver: (callback: Callback) => void = () => {};
  const callback = new Promise<Callback>((resolve) => {
    deliver = resolve;
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback' || url.searchParams.get('state') !== state) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('This is not the callback sluice pair is waiting for.\n');
      return;
    }
    const code = url.searchParams.get('code');
    const error = url.searchParams.get('error');
    res.writeHead(200, { 'content-type': 'text/plain' }).end('Sluice answered. You can close this window.\n');
    deliver(code ? { code } : { error: error ?? 'invalid_callback' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { redirect: `http://127.0.0.1:${port}/callback`, callback, close: () => server.close() };
}

function countdown(sheet: ApprovalSheet): () => void {
  const deadline = Date.now() + sheet.secondsLeft * 1000;
  const say = () => {
    const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    const clock = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
    process.stderr.write(`\rWaiting for the user to approve in Sluice (or: sluice approve ${sheet.id}) — ${clock} left `);
  };
  say();
  if (!process.stderr.isTTY) return () => process.stderr.write('\n');
  const timer = setInterval(say, 1000);
  return () => {
    clearInterval(timer);
    process.stderr.write('\n');
  };
}

async function exchange(dataDir: string, code: string, verifier: string): Promise<string> {
  const handshake = readHandshake(dataDir);
  if (!handshake) throw new Error('Sluice stopped before the exchange (no mcp-handshake.json)');
  const response = await fetch(`http://127.0.0.1:${handshake.port}${EXCHANGE.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, code_verifier: verifier }),
  });
  const body = (await response.json()) as { token?: string; error_description?: string };
  if (response.status !== 200 || !body.token) {
    throw new Error(`the exchange failed (${response.status}: ${body.error_description ?? 'no token'})`);
  }
  return body.token;
}

/**
 * Opens the deep link as an extension does: through the operating system when `sluice install` registered
 * the scheme for this support directory (the handler starts Sluice if it is not running), else by handing
 * it to the running application. Resolves with the approval sheet it raised.
 */
async function openLink(dataDir: string, link: string, redirect: string): Promise<ApprovalSheet> {
  if (!schemeRegistrar(process.platform).isInstalled(currentTarget(sluiceProgram(), dataDir), osSchemeHost)) {
    const opened = (await callControl(dataDir, 'pairing.openUrl', { url: link })) as { ok: true; sheet: ApprovalSheet } | Refusal;
    if (!opened.ok) throw new Error(opened.reason);
    return opened.sheet;
  }
  await openWithOs(link);
  // The sheet is found by its redirect, this run's own loopback port.
  const deadline = Date.now() + SERVER_START_MS + SHEET_WAIT_MS;
  while (Date.now() < deadline) {
    const sheets = (await callControl(dataDir, 'approvals.list').catch(() => [])) as Partial<ApprovalSheet>[];
    const sheet = sheets.find((s) => s.kind === 'pairing' && s.redirect === redirect);
    if (sheet) return sheet as ApprovalSheet;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the operating system opened the link, but no approval sheet came up (the handler's server log: ${join(dataDir, SERVE_LOG)})`);
}

/** Where the token went, and how an extension reads it back (README, "Reading the token back"). */
function storedLine(storeName: string, account: string): string {
  const entry = `new Entry(${JSON.stringify(CREDENTIAL_SERVICE)}, ${JSON.stringify(account)}).getPassword()`;
  return `Paired. The token is in ${storeName}, account ${JSON.stringify(account)}; an extension reads it back with ${entry} (@napi-rs/keyring).\n`;
}

/**
 * `sluice pair --client NAME [--scopes LEVEL] [--print-token]`: the reference extension. PKCE verifier
 * and challenge, a deep link opened through the OS (or handed to the running application), a loopback
 * callback, the exchange, and the token in the OS credential store, service "sluice", account NAME (and on stdout with --print-token, whatever
 * the store does; never in a plain file, never on a command line).
 */
export async function pair(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...dataDirOption, client: { type: 'string' }, scopes: { type: 'string', default: 'readWrite' }, 'print-token': { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length > 0 || !values.client) throw new UsageError('usage: sluice pair --client NAME [--scopes LEVEL] [--print-token]');
  if (!permissionLevels.includes(values.scopes as PermissionLevel)) {
    throw new UsageError(`--scopes must be one of ${permissionLevels.join(', ')}, not "${values.scopes}"`);
  }
  const probe = probeCredentialStore();
  if (!probe.ok && !values['print-token']) {
    throw new UsageError(`nowhere to keep the token: ${probe.reason}; start a credential store (on Linux: gnome-keyring or KeePassXC) or pass --print-token`);
  }
  const dataDir = supportDirOf(argv);
  const verifier = createVerifier();
  const state = randomBytes(16).toString('base64url');
  const listener = await listenForCallback(state);
  try {
    const link = new URL('sluice://integrations/pair');
    link.search = new URLSearchParams({
      client: values.client,
      challenge: challengeFor(verifier),
      redirect: listener.redirect,
      scopes: values.scopes as string,
      state,
    }).toString();
    const sheet = await openLink(dataDir, link.href, listener.redirect);
    const stopCountdown = countdown(sheet);
    const expiry = new Promise<Callback>((resolve) =>
      setTimeout(() => resolve({ error: 'expired' }), sheet.secondsLeft * 1000 + 2_000).unref(),
    );
    const answer = await Promise.race([listener.callback, expiry]);
    stopCountdown();
    if ('error' in answer) {
      throw new Error(answer.error === 'denied' ? 'the user denied the pairing' : `pairing failed: ${answer.error}`);
    }
    const token = await exchange(dataDir, answer.code, verifier);
    if (values['print-token']) process.stdout.write(`${token}\n`);
    if (!probe.ok) {
      process.stderr.write(`Paired. The token was not stored: ${probe.reason}.\n`);
      return;
    }
    const store = osCredentialStore();
    try {
      store.set(values.client, token);
    } catch (error) {
      if (!values['print-token']) throw new Error(`${store.name} refused the token: ${(error as Error).message}`, { cause: error });
      process.stderr.write(`Paired. The token was not stored: ${store.name} refused it (${(error as Error).message}).\n`);
      return;
    }
    process.stderr.write(storedLine(store.name, values.client));
  } finally {
    listener.close();
  }
}
