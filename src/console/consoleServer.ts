import { readdir, readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, relative, sep } from 'node:path';
import type { ActivityListOptions } from '../activity/activityLog.js';
import { TOKEN_ID } from '../auth/tokenStore.js';
import type { ControlHandlers } from '../control/controlServer.js';
import { isPlainObject } from '../protocol/jsonrpc.js';
import { readBody } from '../http/body.js';
import { type ConnectionSlots, createSlottedServer, type Limits } from '../http/connectionSlots.js';
import { isAllowedHost } from '../http/guards/host.js';
import { originOf } from '../http/guards/origin.js';
import { NOSNIFF, sendHttpError, sendJson, setOnEveryAnswer } from '../http/respond.js';
import { type ConsoleAccess, consoleSignInLink } from './consoleAccess.js';
import type { InspectorFeed } from './inspectorFeed.js';
import type { MachineGraph } from './machineGraphs.js';
import { packageRoot } from './packageRoot.js';
import { signInPage } from './signInPage.js';
import { APPLICATION, TRANSPORT } from '../core/contract.js';
import { type AppClock, every } from '../core/clock.js';

/** The commands the page may send (`POST /api/<command>`); the same handlers answer the command line. */
export const CONSOLE_COMMANDS = [
  'approvals.approve',
  'approvals.deny',
  'tokens.create',
  'tokens.revoke',
  'connections.add',
  'connections.update',
  'connections.remove',
  'connections.test',
  'connections.mask',
  'server.setEnabled',
  'lockouts.clear',
  'customTools.define',
  'customTools.remove',
  'activity.undo',
] as const;

const STATIC_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
};
const ACTIVITY_CATEGORIES = new Set(['auth', 'access', 'admin', 'query', 'tool', 'resource']);
const ACTIVITY_OUTCOMES = new Set(['success', 'denied', 'error', 'rateLimited']);

/** The pages' folders under the package root, and the path on the console each is served under. */
const STATIC_DIRS = [
  { dir: 'src/console/public', path: '/' },
  { dir: 'inspector', path: '/inspector/' },
  // Plain modules the server uses too (the escaping of invisible characters, the dialog's words).
  { dir: 'src/core/shared', path: '/core/' },
];

/**
 * The pages' files, path on the console → file under the package root: every file of a type in
 * STATIC_TYPES found in STATIC_DIRS (an `index.html` under its folder's path). A request's path is only
 * looked up here, never joined to the file system.
 */
async function findStaticFiles(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const { dir, path } of STATIC_DIRS) {
    const root = join(packageRoot(), dir);
    const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    for (const entry of entries) {
      // Links are not files here, so nothing outside the folders is ever served.
      if (!entry.isFile() || !Object.hasOwn(STATIC_TYPES, extname(entry.name))) continue;
      const inDir = relative(root, join(entry.parentPath, entry.name)).split(sep).join('/');
      files.set(`${path}${inDir.replace(/(^|\/)index\.html$/, '$1')}`, `${dir}/${inDir}`);
    }
  }
  return files;
}

/** On every answer (refusals included): no script, style, image or connection from anywhere but the console itself. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  ...NOSNIFF,
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export type ConsoleDeps = {
  access: ConsoleAccess;
  commands: ControlHandlers;
  /** The `GET /api/state` document (docs/console.md). */
  state(): Promise<unknown>;
  activity(options: ActivityListOptions): unknown[];
  /** Calls the listener whenever what the page shows may have changed; returns the unsubscribe. */
  onChange(listener: (reason: string) => void): () => void;
  inspector: InspectorFeed;
  machines: Record<string, MachineGraph>;
  /** Times the event streams' keep-alive. */
  clock: AppClock;
};

export type ConsoleServer = { port: number; url: string; openUrl(): string; close(): Promise<void> };

/** What answering a console request reads: the dependencies, the server's slots, the pages, the open streams, the port bound. */
type ConsoleSite = {
  deps: ConsoleDeps;
  limits: Limits;
  slots: ConnectionSlots;
  /** Path on the console → file under the package root (findStaticFiles). */
  staticFiles: Map<string, string>;
  /** The event streams open, ended when the console closes. */
  streams: Set<ServerResponse>;
  /** The port, once bound (0 before). */
  bound: number;
};

/**
 * The console's own loopback HTTP server (docs/console.md): the pages, the sign-in, its JSON API and two
 * event streams. Host checked on every request; the session (an `Authorization` header, never a cookie)
 * on every `/api/` request but the sign-in; the console's own origin on every state-changing request.
 */
export async function startConsoleServer(deps: ConsoleDeps, port: number, limits: Limits = TRANSPORT): Promise<ConsoleServer> {
  const staticFiles = await findStaticFiles();
  const { server, slots } = createSlottedServer(limits, {}, (req, res) => {
    setOnEveryAnswer(res, SECURITY_HEADERS);
    answer(site, req, res).catch(() => {
      if (!res.headersSent) sendHttpError(res, 500, 'internal_error', 'the console failed to answer');
      else res.destroy();
    });
  });
  const site: ConsoleSite = { deps, limits, slots, staticFiles, streams: new Set(), bound: 0 };
  site.bound = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  return {
    port: site.bound,
    url: `${origin(site)}/`,
    openUrl: () => consoleSignInLink(site.bound, deps.access.secret),
    async close() {
      for (const res of site.streams) res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const origin = (site: ConsoleSite) => `http://127.0.0.1:${site.bound}`;

/** One request: connection slot → Host → the sign-in, the API or a page. */
async function answer(site: ConsoleSite, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { slots, limits, deps } = site;
  if (slots.isOverflow(req.socket)) {
    const description = `too many connections: at most ${limits.maxConnections}`;
    sendHttpError(res, 503, 'too_many_connections', description, { connection: 'close', 'retry-after': '1' });
    return;
  }
  if (!isAllowedHost(req.headers.host, site.bound)) {
    sendHttpError(res, 403, 'forbidden_host', 'the console answers only on its loopback address');
    return;
  }
  const url = new URL(req.url ?? '/', origin(site));
  if (url.pathname === '/api/session' && req.method === 'POST') {
    slots.awaitBody(req);
    if (fromConsolePage(site, req, res)) return signIn(deps, req, res);
    return;
  }
  if (url.pathname.startsWith('/api/')) return api(site, url, req, res);
  if (req.method !== 'GET') {
    sendHttpError(res, 405, 'method_not_allowed', 'the console’s pages answer GET', { allow: 'GET' });
    return;
  }
  switch (url.pathname) {
    case '/open':
      // The link's page exchanges the secret (POST /api/session); showing it spends nothing.
      return deps.access.isCurrent(url.searchParams.get('secret') ?? '')
        ? sendHtml(res, 200, signInPage('signingIn'))
        : sendHtml(res, 403, signInPage('badLink'));
    case '/signin':
      return sendHtml(res, 200, signInPage('signedOut'));
    default:
      return serveStatic(site, url.pathname, res);
  }
}

/** `/api/…`: the session first, then a command (POST) or a read (GET). */
async function api(site: ConsoleSite, url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { deps } = site;
  const session = deps.access.admit(req.headers.authorization);
  if (session === undefined) {
    sendHttpError(res, 401, 'unauthenticated', 'sign in with the link `sluice console` prints');
    return;
  }
  if (req.method === 'POST') {
    if (fromConsolePage(site, req, res)) return command(deps, url.pathname, req, res);
    return;
  }
  if (req.method !== 'GET') {
    sendHttpError(res, 405, 'method_not_allowed', 'the console answers GET and POST', { allow: 'GET, POST' });
    return;
  }
  switch (url.pathname) {
    case '/api/state':
      return sendJson(res, 200, await deps.state());
    case '/api/activity': {
      const query = activityQuery(url.searchParams);
      if (typeof query === 'string') return sendJson(res, 400, { error: query });
      return sendJson(res, 200, { rows: deps.activity(query) });
    }
    case '/api/events':
      return stream(site, req, res, session, (send) => deps.onChange((reason) => send('changed', { reason })));
    case '/api/inspector/machines':
      return sendJson(res, 200, { machines: deps.machines });
    case '/api/inspector/events':
      return stream(site, req, res, session, (send) => {
        const unsubscribe = deps.inspector.subscribe((frame) => send(undefined, frame));
        send(undefined, deps.inspector.live());
        return unsubscribe;
      });
    default:
      sendHttpError(res, 404, 'not_found', 'no such API');
  }
}

/**
 * Whether a state-changing request comes from the console's own page: `Origin` exactly the console's,
 * and `Sec-Fetch-Site`, when the browser sends it, `same-origin`. Else answers 403.
 */
function fromConsolePage(site: ConsoleSite, req: IncomingMessage, res: ServerResponse): boolean {
  const requestOrigin = originOf(req);
  const allowed = [origin(site), `http://localhost:${site.bound}`, `http://[::1]:${site.bound}`];
  const fetchSite = req.headers['sec-fetch-site'];
  if (requestOrigin !== undefined && allowed.includes(requestOrigin) && (fetchSite === undefined || fetchSite === 'same-origin')) return true;
  sendHttpError(res, 403, 'forbidden_origin', 'state-changing requests must come from the console itself');
  return false;
}

/** `POST /api/session {secret}`: the one-time secret of a link, exchanged for a session id. */
async function signIn(deps: ConsoleDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const params = await jsonBody(req, res);
  if (params === undefined) return;
  const session = typeof params.secret === 'string' ? deps.access.signIn(params.secret) : undefined;
  if (session === undefined) {
    sendHttpError(res, 403, 'invalid_link', 'this console link was used already or is wrong: run `sluice console` for a new one');
    return;
  }
  sendJson(res, 200, { session });
}

/** A request's JSON object body, or undefined once the refusal (415 or 400 `{error}`) is sent. */
async function jsonBody(req: IncomingMessage, res: ServerResponse): Promise<Record<string, unknown> | undefined> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    sendJson(res, 415, { error: 'send the command as application/json' });
    return undefined;
  }
  let params: unknown;
  try {
    params = JSON.parse(await readBody(req, APPLICATION.maxCommandBytes));
  } catch {
    sendJson(res, 400, { error: 'the body must be a JSON object of at most 64 KB' });
    return undefined;
  }
  if (!isPlainObject(params)) {
    sendJson(res, 400, { error: 'the body must be a JSON object' });
    return undefined;
  }
  return params;
}

/** `POST /api/<command>`: one of CONSOLE_COMMANDS, answered by the control socket's handler. */
async function command(deps: ConsoleDeps, path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const name = path.replace(/^\/api\//, '');
  const handler = (CONSOLE_COMMANDS as readonly string[]).includes(name) ? deps.commands[name] : undefined;
  if (!handler) {
    sendHttpError(res, 404, 'not_found', `no command ${name}`);
    return;
  }
  const params = await jsonBody(req, res);
  if (params === undefined) return;
  try {
    sendJson(res, 200, (await handler(params)) ?? null);
  } catch (error) {
    sendJson(res, 400, { error: (error as Error).message });
  }
}

/**
 * A server-sent event stream, keeping `session` live while it is open; `subscribe` returns its
 * unsubscribe, called when the page goes away.
 */
function stream(
  site: ConsoleSite,
  req: IncomingMessage,
  res: ServerResponse,
  session: string,
  subscribe: (send: (event: string | undefined, data: unknown) => void) => () => void,
): void {
  const { deps, streams } = site;
  res.writeHead(200, { 'content-type': 'text/event-stream', connection: 'keep-alive' });
  res.flushHeaders();
  streams.add(res);
  const send = (event: string | undefined, data: unknown) =>
    res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  const unsubscribe = subscribe(send);
  const release = deps.access.holdOpen(session);
  const stopKeepAlive = every(deps.clock, APPLICATION.consoleKeepAliveMs, () => res.write(':\n\n'));
  req.socket.setTimeout(0);
  res.on('close', () => {
    stopKeepAlive();
    unsubscribe();
    release();
    streams.delete(res);
  });
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': STATIC_TYPES['.html'], 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

async function serveStatic(site: ConsoleSite, path: string, res: ServerResponse): Promise<void> {
  const file = site.staticFiles.get(path === '/inspector' ? '/inspector/' : path);
  if (!file) {
    sendHttpError(res, 404, 'not_found', 'no such page');
    return;
  }
  const body = await readFile(join(packageRoot(), file));
  res.writeHead(200, {
    'content-type': STATIC_TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': body.length,
  });
  res.end(body);
}

/** The activity screen's filters; a malformed token id is refused, so that no one reads all rows as one token's. */
function activityQuery(params: URLSearchParams): ActivityListOptions | string {
  const token = params.get('token');
  if (token !== null && !TOKEN_ID.test(token)) return 'token must be a token id (tok_ and 12 hex digits)';
  const limit = Number(params.get('limit') ?? 100);
  const category = params.get('category') ?? '';
  const outcome = params.get('outcome') ?? '';
  const search = (params.get('q') ?? '').trim().slice(0, 200);
  return {
    limit: Number.isInteger(limit) && limit > 0 ? Math.min(limit, 500) : 100,
    ...(ACTIVITY_CATEGORIES.has(category) ? { category: category as ActivityListOptions['category'] } : {}),
    ...(ACTIVITY_OUTCOMES.has(outcome) ? { outcome: outcome as ActivityListOptions['outcome'] } : {}),
    ...(search ? { search } : {}),
    ...(token !== null ? { tokenId: token } : {}),
  };
}
