import { connect, createServer, type Server, type Socket } from 'node:net';
import { shown } from '../core/errors.js';
import { isPlainObject } from '../protocol/jsonrpc.js';
import {
  clearStaleSocket,
  type ControlRequest,
  type ControlResponse,
  controlSocketPath,
  newControlSocketPath,
  removeControlSocket,
  restrictSocket,
} from '../platform/controlSocket.js';
import { APPLICATION } from '../core/contract.js';

export type ControlHandlers = Record<string, (params: Record<string, unknown>) => unknown>;

function isListening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function answer(handlers: ControlHandlers, line: string): Promise<ControlResponse> {
  let request: ControlRequest;
  try {
    request = JSON.parse(line) as ControlRequest;
  } catch {
    return { id: 0, error: 'not JSON' };
  }
  const handler = typeof request.method === 'string' ? handlers[request.method] : undefined;
  if (!handler) return { id: request.id, error: `unknown command ${shown(request.method)}` };
  try {
    return { id: request.id, result: await handler(isPlainObject(request.params) ? request.params : {}) };
  } catch (error) {
    return { id: request.id, error: (error as Error).message };
  }
}

function serveConnection(socket: Socket, handlers: ControlHandlers, opened: Promise<void>): void {
  let buffer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    if (buffer.length > APPLICATION.maxCommandBytes) socket.destroy();
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      void opened
        .then(() => answer(handlers, line))
        .then((response) => {
          if (!socket.destroyed) socket.write(`${JSON.stringify(response)}\n`);
        });
      newline = buffer.indexOf('\n');
    }
  });
  socket.on('error', () => socket.destroy());
}

/** One application per support directory: a second one is refused before it touches anything. */
export async function assertNotRunning(dataDir: string): Promise<void> {
  const path = controlSocketPath(dataDir);
  if (path !== undefined && (await isListening(path))) {
    throw new Error(`Sluice is already running with the support directory ${dataDir}`);
  }
}

/**
 * The control socket, listening. It claims the support directory at once, but holds every command until
 * `open` (called once the application is up and its handshake written), so that an answer means the
 * MCP server and the console are listening. `close` ends every connection, a held one too.
 */
export type ControlServer = { open(): void; close(): Promise<void> };

/**
 * The command line's way into the running application (`sluice tokens`, `approvals`, `open-url`, …):
 * newline-delimited JSON over a socket only the user can open. A stale socket file is replaced.
 */
export async function startControlServer(dataDir: string, handlers: ControlHandlers): Promise<ControlServer> {
  const path = newControlSocketPath(dataDir);
  clearStaleSocket(path);
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    serveConnection(socket, handlers, opened);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  restrictSocket(path);
  return {
    open,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        removeControlSocket(dataDir, path);
      }),
  };
}
