import { setup } from 'xstate';

export type ConsentAnswer = 'approved' | 'denied' | 'abandoned';

/** A blocked write's confirmation dialog: what the user sees, and who waits for the answer. */
export type ConsentInput = {
  id: string;
  principalId: string;
  clientName: string;
  connectionId: string;
  connectionName: string;
  tool: string;
  statementKind: string;
  /** Shown to the user in full; never sent to the inspector. */
  statement: string;
  createdAt: number;
  settle: (answer: ConsentAnswer) => void;
};

/**
 * The confirmation dialog of a write from a client that cannot ask its user (no `elicitation`): asking
 * until the user approves or denies it, or the request it belongs to ends (cancelled, revoked, past its
 * deadline, disconnected) and the dialog is abandoned.
 */
export const consentMachine = setup({
  types: {
    input: {} as ConsentInput,
    context: {} as ConsentInput,
    events: {} as { type: 'approve' } | { type: 'deny' } | { type: 'abandon' },
  },
}).createMachine({
  id: 'consent',
  context: ({ input }) => input,
  initial: 'asking',
  states: {
    asking: { on: { approve: 'approved', deny: 'denied', abandon: 'abandoned' } },
    approved: { type: 'final', entry: ({ context }) => context.settle('approved') },
    denied: { type: 'final', entry: ({ context }) => context.settle('denied') },
    abandoned: { type: 'final', entry: ({ context }) => context.settle('abandoned') },
  },
});
