import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { type ConnectionSlots, createSlottedServer, type Limits } from './connectionSlots.js';
import { corsHeaders, preflightHeaders } from './cors.js';
import { connectionLimit } from './guards/connectionLimit.js';
import type { Guard, GuardContext } from './guards/guard.js';
import { headerLines } from './guards/headerLines.js';
import { host } from './guards/host.js';
import { origin as allowedOrigin, originOf } from './guards/origin.js';
import { type ExchangeDeps, handleExchange } from './exchangeEndpoint.js';
import { handleMcpPost, type McpEndpointDeps } from './mcp/mcpPost.js';
import { NOSNIFF, sendEmpty, sendHttpError, setOnEveryAnswer } from './respond.js';
import { EXCHANGE, TRANSPORT } from '../core/contract.js';

const MCP_PATH = '/mcp';

/** The checks every request meets, in the contract's order, before its path and method; the first to refuse answers. */
const GUARDS: Guard[] = [connectionLimit, headerLines, host, allowedOrigin];

export type McpHttpServer = {
  /** Binds 127.0.0.1; resolves with the port bound. */
  listen(port: number): Promise<number>;
  /** Ends running requests with `-33000`, lets them answer, then closes every connection. */
  close(): Promise<void>;
  readonly server: Server;
};

export type HttpDeps = { mcp: McpEndpointDeps; exchange: ExchangeDeps };

/** What routing and closing read: the endpoints' dependencies, the guards' context, the `/mcp` requests still answering. */
type McpSite = {
  deps: McpEndpointDeps;
  exchange: ExchangeDeps;
  slots: ConnectionSlots;
  guarded: GuardContext;
  /** `/mcp` requests whose response is not yet closed, and who waits for there to be none. */
  answering: number;
  allAnswered: (() => void) | undefined;
  /** The port, once bound (0 before). */
  boundPort: number;
};

export function createMcpHttpServer({ mcp: deps, exchange }: HttpDeps, limits: Limits = TRANSPORT): McpHttpServer {
  const { server, slots } = createSlottedServer(
    limits,
    // A request without Host must reach the Host rule (403 forbidden_host), not Node's bare 400.
    { requireHostHeader: false },
    (req, res) => route(site, req, res),
  );
  // Node keeps at most this many header lines, so one more tells that the request sent too many.
  server.maxHeadersCount = limits.maxHeaderLines + 1;
  const site: McpSite = {
    deps,
    exchange,
    slots,
    guarded: {
      limits,
      slots,
      get boundPort() {
        return site.boundPort;
      },
    },
    answering: 0,
    allAnswered: undefined,
    boundPort: 0,
  };
  return {
    server,
    listen: (port) => listen(site, server, port),
    close: () => closeGracefully(site, server),
  };
}

/** The guards in order, then the path: the pairing exchange, or `/mcp` (its preflight, then POST). */
function route(site: McpSite, req: IncomingMessage, res: ServerResponse): void {
  setOnEveryAnswer(res, NOSNIFF);
  for (const guard of GUARDS) if (guard(req, res, site.guarded)) return;
  const origin = originOf(req);
  const path = (req.url ?? '').split('?', 1)[0];
  if (path === EXCHANGE.path) return routeExchange(site, req, res);
  if (path !== MCP_PATH) {
    sendHttpError(res, 404, 'not_found', 'Sluice serves POST /mcp and POST /v1/integrations/exchange only');
    return;
  }
  if (req.method === 'OPTIONS') {
    sendEmpty(res, 204, preflightHeaders(req, origin));
    return;
  }
  if (req.method !== 'POST') {
    sendHttpError(res, 405, 'method_not_allowed', 'Use POST', {
      allow: 'POST, OPTIONS',
      ...corsHeaders(origin),
    });
    return;
  }
  site.answering += 1;
  res.once('close', () => {
    site.answering -= 1;
    if (site.answering === 0) site.allAnswered?.();
  });
  site.slots.awaitBody(req);
  void handleMcpPost(req, res, site.deps, corsHeaders(origin));
}

function routeExchange(site: McpSite, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'POST') {
    sendHttpError(res, 405, 'method_not_allowed', 'Use POST', { allow: 'POST' });
    return;
  }
  site.slots.awaitBody(req);
  void handleExchange(req, res, site.exchange);
}

function listen(site: McpSite, server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address();
      site.boundPort = typeof address === 'object' && address ? address.port : port;
      resolve(site.boundPort);
    });
  });
}

/** Ends running requests with `-33000`, lets them answer for a moment, then closes every connection. */
async function closeGracefully(site: McpSite, server: Server): Promise<void> {
  const { deps } = site;
  deps.requests.stopAll();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  // Let the ended requests write their -33000 (for a moment) before the sockets go.
  if (site.answering > 0) {
    await new Promise<void>((resolve) => {
      const timer = deps.clock.setTimeout(resolve, TRANSPORT.shutdownGraceMs);
      site.allAnswered = () => {
        deps.clock.clearTimeout(timer);
        resolve();
      };
    });
  }
  server.closeAllConnections();
  await closed;
}
