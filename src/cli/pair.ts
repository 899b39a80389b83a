import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { EXCHANGE } from '../core/contract.js';
import { readHandshake } from '../core/handshake.js';
import { type PermissionLevel, permissionLevels } from '../auth/levels.js';
import type { ApprovalSheet, Refusal } from '../runtime/pairingService.js';
import { challengeFor, createVerifier } from '../pairing/pkce.js';
import { callControl } from './controlClient.js';
import { findCredentialStore } from './credentialStore.js';
import { dataDirOption, supportDirOf } from './dataDirOption.js';
import { UsageError } from './usageError.js';

type Callback = { code: string } | { error: string };

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
 * `sluice pair --client NAME [--scopes LEVEL] [--print-token]`: the reference extension. PKCE verifier
 * and challenge, a deep link handed to the application, a loopback callback, the exchange, and the token
 * in the OS credential store (or on stdout with --print-token; never in a plain file).
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
  const store = findCredentialStore();
  if (!store && !values['print-token']) {
    throw new UsageError('no credential store is available here (macOS keychain or secret-tool); pass --print-token');
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
    const opened = (await callControl(dataDir, 'pairing.openUrl', { url: link.href })) as { ok: true; sheet: ApprovalSheet } | Refusal;
    if (!opened.ok) throw new Error(opened.reason);

    const stopCountdown = countdown(opened.sheet);
    const expiry = new Promise<Callback>((resolve) =>
      setTimeout(() => resolve({ error: 'expired' }), opened.sheet.secondsLeft * 1000 + 2_000).unref(),
    );
    const answer = await Promise.race([listener.callback, expiry]);
    stopCountdown();
    if ('error' in answer) {
      throw new Error(answer.error === 'denied' ? 'the user denied the pairing' : `pairing failed: ${answer.error}`);
    }
    const token = await exchange(dataDir, answer.code, verifier);
    if (store) {
      store.save(values.client, token);
      process.stderr.write(`Paired. The token is in ${store.name}, account "${values.client}".\n`);
    } else process.stderr.write('Paired.\n');
    if (values['print-token']) process.stdout.write(`${token}\n`);
  } finally {
    listener.close();
  }
}
