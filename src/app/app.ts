import { mkdirSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { anonymousPrincipal } from '../auth/principal.js';
import { createMethodTable } from '../capabilities/methods.js';
import { builtinCapabilities, CapabilityRegistry } from '../capabilities/registry.js';
import type { CapabilityModules } from '../capabilities/types.js';
import { ConnectionCatalog } from '../db/connectionCatalog.js';
import { QueryHistory } from '../db/queryHistory.js';
import { CursorCodec } from '../protocol/cursor.js';
import { SERVER_VERSION } from '../protocol/serverInfo.js';
import { createMcpHttpServer, LIMITS, type Limits } from '../transport/httpServer.js';
import type { RequestTrace } from '../transport/mcpEndpoint.js';
import { loadOrCreateConfig } from './demo.js';
import { removeHandshake, writeHandshake } from './handshake.js';

export const PREFERRED_PORT = 38621;

export type AppOptions = {
  dataDir: string;
  /** A port to bind; `0` for any. Absent: the preferred port, or any when it is busy. */
  port?: number;
  /** Capability modules served besides the built-in ones (tests, the conformance fixtures). */
  extraCapabilities?: CapabilityModules[];
  onRequestEnd?: (trace: RequestTrace) => void;
  /** Transport limits; the contract's values unless a test shortens them. */
  limits?: Limits;
};

export type App = {
  readonly port: number;
  readonly url: string;
  readonly dataDir: string;
  stop(): Promise<void>;
};

const remoteAddress = (req: IncomingMessage) => req.socket.remoteAddress ?? 'unknown';

export async function startApp(options: AppOptions): Promise<App> {
  const { dataDir } = options;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const config = loadOrCreateConfig(dataDir);
  const catalog = new ConnectionCatalog(config.connections);
  const registry = new CapabilityRegistry(builtinCapabilities, ...(options.extraCapabilities ?? []));

  const http = createMcpHttpServer(
    {
      methods: createMethodTable(registry, new CursorCodec()),
      catalog,
      history: new QueryHistory(),
      authenticate: (req) => anonymousPrincipal(remoteAddress(req)),
      running: new Set(),
      ...(options.onRequestEnd ? { onRequestEnd: options.onRequestEnd } : {}),
    },
    options.limits ?? LIMITS,
  );

  const port = await listenPreferred(http.listen, options.port);
  writeHandshake(dataDir, { port, pid: process.pid, version: SERVER_VERSION });

  let stopped: Promise<void> | undefined;
  return {
    port,
    url: `http://127.0.0.1:${port}/mcp`,
    dataDir,
    stop() {
      stopped ??= (async () => {
        removeHandshake(dataDir);
        await http.close();
        await catalog.close();
      })();
      return stopped;
    },
  };
}

async function listenPreferred(
  listen: (port: number) => Promise<number>,
  port: number | undefined,
): Promise<number> {
  if (port !== undefined) return listen(port);
  try {
    return await listen(PREFERRED_PORT);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    return listen(0);
  }
}
