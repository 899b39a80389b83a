import { assign, setup } from 'xstate';
import { unprovided } from './unprovided.js';

export type PairingCodeInput = { code: string; challenge: string; tokenId: string; plaintext: string };

/** How the code ended; a token nobody received (burned, expired) is the application's to revoke. */
export type PairingCodeOutput = { outcome: 'spent' | 'burned' | 'expired'; tokenId: string };

/**
 * A one-time code holding a freshly minted token for the client that owns the PKCE verifier. The right
 * verifier spends it; a wrong one burns it; five minutes expire it. The plaintext is forgotten the
 * moment the code leaves `pending`.
 */
export const pairingCodeMachine = setup({
  types: {
    input: {} as PairingCodeInput,
    context: {} as Omit<PairingCodeInput, 'plaintext'> & { plaintext: string | null },
    events: {} as { type: 'exchange'; verifier: string },
    output: {} as PairingCodeOutput,
  },
  guards: {
    /** The PKCE check of `event.verifier` against `context.challenge`. */
    verifierMatches: unprovided('verifierMatches'),
  },
  actions: { forgetToken: assign({ plaintext: null }) },
  // The tombstone keeps an expired code known, so that a late exchange hears 410 rather than 404.
  delays: { codeLifetime: unprovided('codeLifetime'), tombstone: unprovided('tombstone') },
}).createMachine({
  id: 'pairingCode',
  context: ({ input }) => input,
  output: ({ context, event }) => ({ ...(event.output as Pick<PairingCodeOutput, 'outcome'>), tokenId: context.tokenId }),
  initial: 'pending',
  states: {
    pending: {
      exit: 'forgetToken',
      after: { codeLifetime: 'expired' },
      on: {
        exchange: [{ guard: 'verifierMatches', target: 'spent' }, { target: 'burned' }],
      },
    },
    spent: { type: 'final', output: { outcome: 'spent' } },
    burned: { type: 'final', output: { outcome: 'burned' } },
    expired: { after: { tombstone: 'gone' } },
    gone: { type: 'final', output: { outcome: 'expired' } },
  },
});
