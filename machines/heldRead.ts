import { setup } from 'xstate';
import { unprovided } from './unprovided.js';

/** Why a held read ended: read to its last page, idle too long, its token revoked, or released (its connection changed, the server stopped, its slot was needed). */
export type HeldReadEnd = 'finished' | 'expired' | 'revoked' | 'released';

export type HeldReadInput = {
  principalId: string;
  /** The connection (and database) whose session the read holds. */
  connectionKey: string;
  /** Hears once why the read ended: the session is given back then. */
  settle: (end: HeldReadEnd) => void;
};

/**
 * The open statement behind one `next_cursor`: open until its last page is read, its token is revoked,
 * it is released, or `idle` passes after its last page (each `page` starts the wait again).
 */
export const heldReadMachine = setup({
  types: {
    input: {} as HeldReadInput,
    context: {} as HeldReadInput,
    events: {} as { type: 'page' } | { type: 'finish' } | { type: 'revoke' } | { type: 'release' },
  },
  delays: { idle: unprovided('idle') },
}).createMachine({
  id: 'heldRead',
  context: ({ input }) => input,
  initial: 'open',
  states: {
    open: {
      after: { idle: { target: 'ended', actions: ({ context }) => context.settle('expired') } },
      on: {
        page: { target: 'open', reenter: true },
        finish: { target: 'ended', actions: ({ context }) => context.settle('finished') },
        revoke: { target: 'ended', actions: ({ context }) => context.settle('revoked') },
        release: { target: 'ended', actions: ({ context }) => context.settle('released') },
      },
    },
    ended: { type: 'final' },
  },
});
