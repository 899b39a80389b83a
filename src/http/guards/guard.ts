import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Limits } from '../httpServer.js';

/** What the guards know of the server: its limits, the port it bound, the connections over the limit. */
export type GuardContext = { limits: Limits; boundPort: number; overflow: WeakSet<Socket> };

/** One check every request meets before its path is looked at: true when it answered (and refused). */
export type Guard = (req: IncomingMessage, res: ServerResponse, server: GuardContext) => boolean;
