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
  const held: Held = { waiting: new Set(), answering: new Map(), overflow: new WeakSet() };
  const server = timedServer(limits, options);
  server.on('timeout', (socket: Socket) => {
    if (!held.answering.has(socket)) socket.destroy();
  });
  server.on('connection', (socket: Socket) => admitConnection(held, limits, socket));
  // Counted before its handler starts, so that the handler may let its connection give way at once.
  server.on('request', (req: IncomingMessage, res: ServerResponse) => countRequest(held, req, res));
  server.on('request', onRequest);
  return {
    server,
    slots: {
      isOverflow: (socket) => held.overflow.has(socket),
      awaitBody: (req) => awaitBody(held, req),
    },
  };
}

/** Which connections hold a slot, and in which state. */
type Held = {
  /** Connections waiting on their client, the longest-waiting first (a Set keeps insertion order). */
  waiting: Set<Socket>;
  /** Connections with requests being answered, and how many (pipelined requests queue on one). */
  answering: Map<Socket, number>;
  overflow: WeakSet<Socket>;
};

/** A node:http server with the limits' head, request and idle deadlines. */
function timedServer(limits: Limits, options: ServerOptions): Server {
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
  return server;
}

/** A new connection takes a free slot, or the slot of the longest waiting one, or is marked overflow. */
function admitConnection(held: Held, limits: Limits, socket: Socket): void {
  const { waiting, answering } = held;
  if (waiting.size + answering.size >= limits.maxConnections) {
    const [longest] = waiting;
    if (longest === undefined) {
      held.overflow.add(socket);
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
}

/** A request's connection is answering until its response closes, then waits on its client again. */
function countRequest(held: Held, req: IncomingMessage, res: ServerResponse): void {
  const { answering } = held;
  const socket = req.socket;
  if (held.overflow.has(socket) || socket.destroyed) return;
  held.waiting.delete(socket);
  answering.set(socket, (answering.get(socket) ?? 0) + 1);
  res.once('close', () => {
    const left = (answering.get(socket) ?? 1) - 1;
    if (left > 0) answering.set(socket, left);
    else if (answering.has(socket)) wait(held, socket);
  });
}

/** ConnectionSlots.awaitBody: the connection waits on its client until the body has come. */
function awaitBody(held: Held, req: IncomingMessage): void {
  const socket = req.socket;
  if (!held.answering.has(socket)) return;
  wait(held, socket);
  req.once('end', () => {
    if (socket.destroyed || !held.waiting.delete(socket)) return;
    held.answering.set(socket, 1);
  });
}

/** The connection waits on its client again: last in the line of those that may give way. */
function wait(held: Held, socket: Socket): void {
  held.answering.delete(socket);
  held.waiting.delete(socket);
  if (!socket.destroyed) held.waiting.add(socket);
}
