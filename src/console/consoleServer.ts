import { readdir, readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, relative, sep } from 'node:path';
import type { ActivityListOptions } from '../activity/activityLog.js';
import type { ControlHandlers } from '../control/controlServer.js';
import { isPlainObject } from '../protocol/jsonrpc.js';
import { readBody } from '../http/body.js';
import { isAllowedHost } from '../http/guards/host.js';
import { originOf } from '../http/guards/origin.js';
import { sendHttpError, sendJson } from '../http/respond.js';
import { type ConsoleAccess, SESSION_COOKIE } from './consoleAccess.js';
import type { InspectorFeed } from './inspectorFeed.js';
import type { MachineGraph } from './machineGraphs.js';
import { packageRoot } from './packageRoot.js';
import { APPLICATION } from '../core/contract.js';
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
  'server.setEnabled',
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

/** No script, style, image or connection from anywhere but the console itself. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export type ConsoleDeps = {
  access: ConsoleAccess;
  commands: ControlHandlers;
  /** The `GET /api/state` document (docs/console.md). */
  state(): unknown;
  activity(options: ActivityListOptions): unknown[];
  /** Calls the listener whenever what the page shows may have changed; returns the unsubscribe. */
  onChange(listener: (reason: string) => void): () => void;
  inspector: InspectorFeed;
  machines: Record<string, MachineGraph>;
  /** Times the event streams' keep-alive. */
  clock: AppClock;
};

export type ConsoleServer = { port: number; url: string; openUrl(): string; close(): Promise<void> };

/**
 * The console's own loopback HTTP server (docs/console.md): the page, its JSON API and two event streams.
 * Host checked on every request, a session cookie on all but `/open`, and the console's own origin on
 * every state-changing request.
 */
export async function startConsoleServer(deps: ConsoleDeps, port: number): Promise<ConsoleServer> {
  const staticFiles = await findStaticFiles();
  const streams = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendHttpError(res, 500, 'internal_error', 'the console failed to answer');
      else res.destroy();
    });
  });
  let bound = 0;
  const origin = () => `http://127.0.0.1:${bound}`;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!isAllowedHost(req.headers.host, bound)) {
      sendHttpError(res, 403, 'forbidden_host', 'the console answers only on its loopback address');
      return;
    }
    const url = new URL(req.url ?? '/', origin());
    if (url.pathname === '/open' && req.method === 'GET') return open(url, res);
    if (!deps.access.admits(req.headers.cookie)) {
      sendHttpError(res, 401, 'unauthenticated', 'open the console with the link `sluice console` prints');
      return;
    }
    if (req.method === 'POST') {
      const requestOrigin = originOf(req);
      const allowed = [origin(), `http://localhost:${bound}`, `http://[::1]:${bound}`];
      if (requestOrigin === undefined || !allowed.includes(requestOrigin)) {
        sendHttpError(res, 403, 'forbidden_origin', 'state-changing requests must come from the console itself');
        return;
      }
      return command(url.pathname, req, res);
    }
    if (req.method !== 'GET') {
      sendHttpError(res, 405, 'method_not_allowed', 'the console answers GET and POST', { allow: 'GET, POST' });
      return;
    }
    switch (url.pathname) {
      case '/api/state':
        return sendJson(res, 200, deps.state(), SECURITY_HEADERS);
      case '/api/activity':
        return sendJson(res, 200, { rows: deps.activity(activityQuery(url.searchParams)) }, SECURITY_HEADERS);
      case '/api/events':
        return stream(req, res, (send) => deps.onChange((reason) => send('changed', { reason })));
      case '/api/inspector/machines':
        return sendJson(res, 200, { machines: deps.machines }, SECURITY_HEADERS);
      case '/api/inspector/events':
        return stream(req, res, (send) => {
          const unsubscribe = deps.inspector.subscribe((frame) => send(undefined, frame));
          send(undefined, deps.inspector.live());
          return unsubscribe;
        });
      default:
        return serveStatic(url.pathname, res);
    }
  }

  function open(url: URL, res: ServerResponse): void {
    const session = deps.access.open(url.searchParams.get('secret') ?? '');
    if (!session) {
      sendHttpError(res, 403, 'invalid_link', 'this console link was used already or is wrong: run `sluice console` for a new one');
      return;
    }
    res.writeHead(303, {
      ...SECURITY_HEADERS,
      location: '/',
      'set-cookie': `${SESSION_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/`,
      'content-length': 0,
    });
    res.end();
  }

  async function command(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const name = path.replace(/^\/api\//, '');
    const handler = (CONSOLE_COMMANDS as readonly string[]).includes(name) ? deps.commands[name] : undefined;
    if (!handler) {
      sendHttpError(res, 404, 'not_found', `no command ${name}`);
      return;
    }
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      sendJson(res, 415, { error: 'send the command as application/json' }, SECURITY_HEADERS);
      return;
    }
    let params: unknown;
    try {
      params = JSON.parse(await readBody(req, APPLICATION.maxCommandBytes));
    } catch {
      sendJson(res, 400, { error: 'the body must be a JSON object of at most 64 KB' }, SECURITY_HEADERS);
      return;
    }
    if (!isPlainObject(params)) {
      sendJson(res, 400, { error: 'the body must be a JSON object' }, SECURITY_HEADERS);
      return;
    }
    try {
      sendJson(res, 200, (await handler(params)) ?? null, SECURITY_HEADERS);
    } catch (error) {
      sendJson(res, 400, { error: (error as Error).message }, SECURITY_HEADERS);
    }
  }

  /** A server-sent event stream; `subscribe` returns its unsubscribe, called when the page goes away. */
  function stream(
    req: IncomingMessage,
    res: ServerResponse,
    subscribe: (send: (event: string | undefined, data: unknown) => void) => () => void,
  ): void {
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream', connection: 'keep-alive' });
    res.flushHeaders();
    streams.add(res);
    const send = (event: string | undefined, data: unknown) =>
      res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
    const unsubscribe = subscribe(send);
    const stopKeepAlive = every(deps.clock, APPLICATION.consoleKeepAliveMs, () => res.write(':\n\n'));
    req.socket.setTimeout(0);
    res.on('close', () => {
      stopKeepAlive();
      unsubscribe();
      streams.delete(res);
    });
  }

  async function serveStatic(path: string, res: ServerResponse): Promise<void> {
    const file = staticFiles.get(path === '/inspector' ? '/inspector/' : path);
    if (!file) {
      sendHttpError(res, 404, 'not_found', 'no such page');
      return;
    }
    const body = await readFile(join(packageRoot(), file));
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': STATIC_TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': body.length,
    });
    res.end(body);
  }

  bound = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  return {
    port: bound,
    url: `${origin()}/`,
    openUrl: () => `${origin()}/open?secret=${deps.access.secret}`,
    async close() {
      for (const res of streams) res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function activityQuery(params: URLSearchParams): ActivityListOptions {
  const limit = Number(params.get('limit') ?? 100);
  const category = params.get('category') ?? '';
  const outcome = params.get('outcome') ?? '';
  const search = (params.get('q') ?? '').trim().slice(0, 200);
  return {
    limit: Number.isInteger(limit) && limit > 0 ? Math.min(limit, 500) : 100,
    ...(ACTIVITY_CATEGORIES.has(category) ? { category: category as ActivityListOptions['category'] } : {}),
    ...(ACTIVITY_OUTCOMES.has(outcome) ? { outcome: outcome as ActivityListOptions['outcome'] } : {}),
    ...(search ? { search } : {}),
  };
}
