import { createServer, type Server, type Socket, connect } from 'node:net';

/**
 * A TCP proxy on loopback in front of a database server, so a test can make the server "go down"
 * (`stop`: no more connections are accepted, and every connection already piped through is cut) and
 * "come back" (`start`: listening again on the same port) without touching the real server.
 */
export type TcpProxy = {
  /** The port the proxy listens on (the same after a restart). */
  readonly port: number;
  readonly running: boolean;
  /** Connections currently piped through (client side). */
  connections(): number;
  /** Stops listening and destroys every piped socket; resolves once the listener is closed. */
  stop(): Promise<void>;
  /** Listens again on the same port (a no-op while running). */
  start(): Promise<void>;
};

export async function startTcpProxy(targetPort: number, listenPort = 0, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  let server: Server | undefined;
  let port = listenPort;

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const accept = (client: Socket) => {
    const upstream = connect({ host: targetHost, port: targetPort });
    track(client);
    track(upstream);
    clients.add(client);
    client.once('close', () => clients.delete(client));
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    // Either side failing or closing ends the pair at once, as a network cut would.
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', cut);
    upstream.on('error', cut);
    client.once('close', cut);
    upstream.once('close', cut);
    client.pipe(upstream);
    upstream.pipe(client);
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer(accept);
      next.once('error', reject);
      next.listen({ host: '127.0.0.1', port }, () => {
        next.off('error', reject);
        const address = next.address();
        if (address === null || typeof address === 'string') {
          next.close();
          reject(new Error('the proxy has no TCP address'));
          return;
        }
        port = address.port;
        server = next;
        resolve();
      });
    });

  await listen();

  return {
    get port() {
      return port;
    },
    get running() {
      return server !== undefined;
    },
    connections: () => clients.size,
    async stop() {
      const current = server;
      server = undefined;
      const closed = current ? new Promise<void>((resolve) => current.close(() => resolve())) : Promise.resolve();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    async start() {
      if (server) return;
      await listen();
    },
  };
}

/** A loopback port nothing listens on (bound once by the system, then released). */
export async function unusedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ host: '127.0.0.1', port: 0 }, resolve);
  });
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}
