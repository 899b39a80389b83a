import { setup } from 'xstate';

export type LegacySessionInput = {
  sessionId: string;
  /** The token that created it: only it may use the session. */
  principalId: string;
  protocolVersion: string;
  /** What the client said of itself in `initialize`. */
  clientInfo: { name?: string; title?: string; version?: string } | undefined;
  createdAt: number;
};

/**
 * A legacy (`initialize`) session: active until it is evicted by the supervisor as the least recently
 * used of too many (sixteen), or closed because its token was revoked or the server stopped. Its next request then hears
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
