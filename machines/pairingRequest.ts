import { assign, setup } from 'xstate';
import { unprovided } from './unprovided.js';

/** What the user chose on the approval sheet. */
export type ApprovalChoice = {
  level: 'readOnly' | 'readWrite' | 'fullAccess';
  connections: 'all' | string[];
  expiresInDays: number | null;
  /** Only these custom tools (no resources, prompts or other tools); absent: every tool the level allows. */
  tools?: string[];
};

/** The deep link's request, as validated; nothing secret (the challenge is public by design). */
export type PairingRequestInput = {
  id: string;
  clientName: string;
  challenge: string;
  /** Where the code (or the refusal) is delivered. */
  redirect: string;
  state?: string;
  responseMode?: 'query' | 'context';
  requestedLevel: ApprovalChoice['level'];
  createdAt: number;
};

export type PairingRequestOutcome = 'approved' | 'denied' | 'expired';

export type PairingRequestOutput = { outcome: PairingRequestOutcome; request: PairingRequestInput };

/**
 * One approval sheet: awaiting the user's answer for the approval window (five minutes), then approved (a code is pending),
 * denied, or expired (Approve dimmed). Minting and delivery are the caller's, once this machine has
 * moved: the machine alone decides whether an answer still counts.
 */
export const pairingRequestMachine = setup({
  types: {
    input: {} as PairingRequestInput,
    context: {} as PairingRequestInput & { choice?: ApprovalChoice },
    events: {} as ({ type: 'approve' } & ApprovalChoice) | { type: 'deny' },
    output: {} as PairingRequestOutput,
  },
  delays: { approvalWindow: unprovided('approvalWindow') },
}).createMachine({
  id: 'pairingRequest',
  context: ({ input }) => input,
  // The final state's outcome, with the request it answers, passed up to the supervisor.
  output: ({ context, event }) => {
    const { choice: _choice, ...request } = context;
    return { outcome: (event.output as { outcome: PairingRequestOutcome }).outcome, request };
  },
  initial: 'awaitingApproval',
  states: {
    awaitingApproval: {
      after: { approvalWindow: 'expired' },
      on: {
        approve: {
          target: 'codePending',
          actions: assign({
            choice: ({ event }) => ({ level: event.level, connections: event.connections, expiresInDays: event.expiresInDays }),
          }),
        },
        deny: 'denied',
      },
    },
    codePending: { type: 'final', output: { outcome: 'approved' satisfies PairingRequestOutcome } },
    denied: { type: 'final', output: { outcome: 'denied' satisfies PairingRequestOutcome } },
    expired: { type: 'final', output: { outcome: 'expired' satisfies PairingRequestOutcome } },
  },
});
