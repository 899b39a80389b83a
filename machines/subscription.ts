import { enqueueActions, setup } from 'xstate';
import { unprovided } from './unprovided.js';

export type SubscriptionCloseReason = 'cancelled' | 'revoked' | 'shutdown' | 'disconnected';

export type SubscriptionInput = {
  principalId: string;
  requestId: string | number;
  connected: () => boolean;
  /** Writes the `:` keep-alive comment. */
  keepAlive: () => void;
  /** Hears once why the stream closed. */
  settle: (reason: SubscriptionCloseReason) => void;
};

/**
 * A `subscriptions/listen` stream: listening, with a keep-alive every 15 s and the connection polled
 * once a second, until the client closes it, cancels it, its token is revoked or the server stops.
 * No handler deadline applies.
 */
export const subscriptionMachine = setup({
  types: {
    input: {} as SubscriptionInput,
    context: {} as SubscriptionInput,
    events: {} as { type: 'cancel' } | { type: 'revoke' } | { type: 'shutdown' } | { type: 'disconnect' },
  },
  delays: { keepAlive: unprovided('keepAlive'), poll: unprovided('poll') },
  actions: {
    checkConnection: enqueueActions(({ context, enqueue }) => {
      if (!context.connected()) enqueue.raise({ type: 'disconnect' });
    }),
  },
}).createMachine({
  id: 'subscription',
  context: ({ input }) => input,
  initial: 'listening',
  states: {
    listening: {
      type: 'parallel',
      on: {
        cancel: { target: 'closed', actions: ({ context }) => context.settle('cancelled') },
        revoke: { target: 'closed', actions: ({ context }) => context.settle('revoked') },
        shutdown: { target: 'closed', actions: ({ context }) => context.settle('shutdown') },
        disconnect: { target: 'closed', actions: ({ context }) => context.settle('disconnected') },
      },
      states: {
        keepingAlive: {
          initial: 'waiting',
          states: {
            waiting: { after: { keepAlive: { target: 'waiting', reenter: true, actions: ({ context }) => context.keepAlive() } } },
          },
        },
        watching: {
          initial: 'waiting',
          states: { waiting: { after: { poll: { target: 'waiting', reenter: true, actions: 'checkConnection' } } } },
        },
      },
    },
    closed: { type: 'final' },
  },
});
