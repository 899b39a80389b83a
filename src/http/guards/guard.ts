import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConnectionSlots, Limits } from '../connectionSlots.js';

/** What the guards know of the server: its limits, the port it bound, its connections' slots. */
export type GuardContext = { limits: Limits; boundPort: number; slots: ConnectionSlots };

/** One check every request meets before its path is looked at: true when it answered (and refused). */
export type Guard = (req: IncomingMessage, res: ServerResponse, server: GuardContext) => boolean;
