import { setup } from 'xstate';
import type { ClientInfo } from '../src/protocol/era.js';

export const MAX_LEGACY_SESSIONS = 16;

export type LegacySessionInput = {
  sessionId: string;
  /** The token that created it: only it may use the session. */
  principalId: string;
  protocolVersion: string;
  clientInfo: ClientInfo | undefined;
  createdAt: number;
};

/**
 * A legacy (`initialize`) session: active until it is evicted as the least recently used of more than
 * sixteen, or closed because its token was revoked or the server stopped. Its next request then hears
 * `-33001` and must `initialize` again.
 */
export const legacySessionMachine = setup({
  types: {
    input: {} as LegacySessionInput,
    context: {} as LegacySessionInput,
    events: {} as { type: 'evict' } | { type: 'close' },
  },
}).createMachine({
  id: 'legacySession',
  context: ({ input }) => input,
  initial: 'active',
  states: {
    active: { on: { evict: 'evicted', close: 'closed' } },
    evicted: { type: 'final' },
    closed: { type: 'final' },
  },
});
