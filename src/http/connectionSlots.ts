import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** The transport's limits: the contract's (`TRANSPORT`) unless a test shortens them. */
export type Limits = {
  maxConnections: number;
  idleTimeoutMs: number;
  maxHeaderBytes: number;
  /** Header lines in one request; more is refused with 431 before any header is looked at. */
  maxHeaderLines: number;
  /** A request head must be complete this long after its first byte (or the connection's start). */
  headersTimeoutMs: number;
  /** A whole request, body included, must have arrived this long after its first byte. */
  requestTimeoutMs: number;
  /** How often node:http looks for a head or request past its deadline. */
  connectionsCheckingIntervalMs: number;
};

/** Which connections of a server hold a slot, and which came past the cap with nothing to give way. */
export type ConnectionSlots = {
  /** Refused: it arrived when every slot held a request being answered. */
  isOverflow(socket: Socket): boolean;
  /**
   * The request's body is still to come: until it has, the request waits on its client and its
   * connection may give way to a newcomer as an idle one would; once the body has come, it is being
   * answered again. A caller refused before its body is read never gets back its hold.
   */
  awaitBody(req: IncomingMessage): void;
};

/**
 * A node:http server that holds at most `maxConnections` connections. A newcomer at the cap takes the
 * slot of the connection that has waited longest on its client: one still sending its head (or nothing
 * yet), or an idle keep-alive one; that connection is closed. Only when every slot holds a request being
 * answered is the newcomer marked as overflow, for the server's first check to refuse. A head must be
 * complete within `headersTimeoutMs` and a request within `requestTimeoutMs` (node:http answers 408 and
 * closes), and a connection idle for `idleTimeoutMs` is closed unless a request on it is being answered.
 */
export function createSlottedServer(
  limits: Limits,
  options: ServerOptions,
  onRequest: (req: IncomingMessage, res: ServerResponse) => void,
): { server: Server; slots: ConnectionSlots } {
  /** Connections waiting on their client, the longest-waiting first (a Set keeps insertion order). */
  const waiting = new Set<Socket>();
  /** Connections with requests being answered, and how many (pipelined requests queue on one). */
  const answering = new Map<Socket, number>();
  const overflow = new WeakSet<Socket>();

  const wait = (socket: Socket) => {
    answering.delete(socket);
    waiting.delete(socket);
    if (!socket.destroyed) waiting.add(socket);
  };

  const server = createServer({
    ...options,
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: limits.connectionsCheckingIntervalMs,
    // Node keeps an idle keep-alive socket open for keepAliveTimeout + 1 s.
    keepAliveTimeout: Math.max(1, limits.idleTimeoutMs - 1_000),
  });
  server.setTimeout(limits.idleTimeoutMs);
  server.on('timeout', (socket: Socket) => {
    if (!answering.has(socket)) socket.destroy();
  });
  server.on('connection', (socket: Socket) => {
    if (waiting.size + answering.size >= limits.maxConnections) {
      const [longest] = waiting;
      if (longest === undefined) {
        overflow.add(socket);
        return;
      }
      waiting.delete(longest);
      longest.destroy();
    }
    waiting.add(socket);
    socket.once('close', () => {
      waiting.delete(socket);
      answering.delete(socket);
    });
  });
  // Counted before its handler starts, so that the handler may let its connection give way at once.
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    if (overflow.has(socket) || socket.destroyed) return;
    waiting.delete(socket);
    answering.set(socket, (answering.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (answering.get(socket) ?? 1) - 1;
      if (left > 0) answering.set(socket, left);
      else if (answering.has(socket)) wait(socket);
    });
  });
  server.on('request', onRequest);

  return {
    server,
    slots: {
      isOverflow: (socket) => overflow.has(socket),
      awaitBody: (req) => {
        const socket = req.socket;
        if (!answering.has(socket)) return;
        wait(socket);
        req.once('end', () => {
          if (socket.destroyed || !waiting.delete(socket)) return;
          answering.set(socket, 1);
        });
      },
    },
  };
}
