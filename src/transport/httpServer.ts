import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import { errorResponse } from '../protocol/wire.js';
import { corsHeaders, preflightHeaders } from './cors.js';
import { isAllowedHost, isAllowedOrigin, originOf } from './guards.js';
import { EXCHANGE_PATH, type ExchangeDeps, handleExchange } from './exchangeEndpoint.js';
import { handleMcpPost, type McpEndpointDeps } from './mcpEndpoint.js';
import { sendEmpty, sendHttpError, sendJson } from './respond.js';

export type Limits = {
  maxConnections: number;
  idleTimeoutMs: number;
  maxHeaderBytes: number;
  /** Header lines in one request; more is refused with 431 before any header is looked at. */
  maxHeaderLines: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
};

/** The contract's limits; tests shorten the timeouts rather than sleep through them. */
export const LIMITS: Limits = {
  maxConnections: 64,
  idleTimeoutMs: 30_000,
  maxHeaderBytes: 16 * 1024,
  maxHeaderLines: 100,
  // A connection that has not delivered a whole request head within the idle timeout is closed, whether
  // it sent nothing (idle) or sends its headers a byte at a time (a slow header sender).
  headersTimeoutMs: 30_000,
  requestTimeoutMs: 120_000,
};

const MCP_PATH = '/mcp';

export type McpHttpServer = {
  /** Binds 127.0.0.1; resolves with the port bound. */
  listen(port: number): Promise<number>;
  /** Ends running requests with `-33000`, lets them answer, then closes every connection. */
  close(): Promise<void>;
  readonly server: Server;
};

export type HttpDeps = { mcp: McpEndpointDeps; exchange: ExchangeDeps };

export function createMcpHttpServer({ mcp: deps, exchange }: HttpDeps, limits: Limits = LIMITS): McpHttpServer {
  let boundPort = 0;
  const sockets = new Set<Socket>();
  const overflow = new WeakSet<Socket>();
  const busy = new WeakSet<Socket>();
  /** `/mcp` requests whose response is not yet closed. */
  let answering = 0;

  const server = createServer(
    {
      maxHeaderSize: limits.maxHeaderBytes,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // Node checks those two deadlines on this interval (30 s by default, which would let them run late);
      // twice a second keeps a slow header sender's cut within 30.5 s even on a busy event loop.
      connectionsCheckingInterval: 500,
      // Node keeps an idle keep-alive socket open for keepAliveTimeout + 1 s.
      keepAliveTimeout: Math.max(1, limits.idleTimeoutMs - 1_000),
      // A request without Host must reach the Host rule (403 forbidden_host), not Node's bare 400.
      requireHostHeader: false,
    },
    (req, res) => route(req, res),
  );
  // Node keeps at most this many header lines, so one more tells that the request sent too many.
  server.maxHeadersCount = limits.maxHeaderLines + 1;
  server.setTimeout(limits.idleTimeoutMs);
  // A socket idle for 30 s is closed, unless a request on it is still being worked on.
  server.on('timeout', (socket: Socket) => {
    if (!busy.has(socket)) socket.destroy();
  });
  server.on('connection', (socket: Socket) => {
    if (sockets.size >= limits.maxConnections) overflow.add(socket);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  function route(req: IncomingMessage, res: ServerResponse): void {
    if (overflow.has(req.socket)) {
      const reply = errorResponse(
        null,
        new ProtocolError(
          ErrorCode.ServerUnavailable,
          `Too many connections: at most ${limits.maxConnections}`,
        ),
      );
      sendJson(res, reply.status, reply.body, { connection: 'close', 'retry-after': '1' });
      return;
    }
    if (req.rawHeaders.length > 2 * limits.maxHeaderLines) {
      sendHttpError(res, 431, 'too_many_headers', `At most ${limits.maxHeaderLines} header lines`, { connection: 'close' });
      return;
    }
    if (!isAllowedHost(req.headers.host, boundPort)) {
      sendHttpError(
        res,
        403,
        'forbidden_host',
        'The Host header must name localhost, 127.0.0.1 or ::1 and the bound port',
      );
      return;
    }
    const origin = originOf(req);
    if (!isAllowedOrigin(origin)) {
      sendHttpError(res, 403, 'forbidden_origin', 'This origin may not call Sluice');
      return;
    }
    const path = (req.url ?? '').split('?', 1)[0];
    if (path === EXCHANGE_PATH) {
      if (req.method === 'POST') void handleExchange(req, res, exchange);
      else sendHttpError(res, 405, 'method_not_allowed', 'Use POST', { allow: 'POST' });
      return;
    }
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
    busy.add(req.socket);
    answering += 1;
    res.once('close', () => {
      busy.delete(req.socket);
      answering -= 1;
    });
    void handleMcpPost(req, res, deps, corsHeaders(origin));
  }

  return {
    server,
    listen(port) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          const address = server.address();
          boundPort = typeof address === 'object' && address ? address.port : port;
          resolve(boundPort);
        });
      });
    },
    async close() {
      deps.requests.stopAll();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Let the ended requests write their -33000 (for at most a second) before the sockets go.
      for (let waited = 0; answering > 0 && waited < 1_000; waited += 10) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      server.closeAllConnections();
      await closed;
    },
  };
}
