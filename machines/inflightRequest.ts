import { assign, enqueueActions, fromPromise, setup } from 'xstate';
import { unprovided } from './unprovided.js';

/** Why a request ended before its handler did; the runtime gives each its error code. */
export type InflightEnding = 'cancelled' | 'revoked' | 'shutdown' | 'timedOut' | 'disconnected';

export type InflightOutcome =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; error: unknown }
  | { ok: false; ended: InflightEnding };

export type InflightInput = {
  principalId: string;
  requestId: string | number;
  method: string;
  /** `null` for `subscriptions/listen`, which has no deadline. */
  deadlineMs: number | null;
  /** Polled (once a second): false once the client's connection is gone. */
  connected: () => boolean;
  /** The handler; its signal aborts the moment the request leaves `running`. */
  work: (signal: AbortSignal) => Promise<Record<string, unknown>>;
  /** Hears the outcome exactly once, when the request reaches a final state. */
  settle: (outcome: InflightOutcome) => void;
};

type Context = InflightInput & { outcome?: InflightOutcome };

const ended = (ending: InflightEnding): InflightOutcome => ({ ok: false, ended: ending });

/**
 * One request being worked on. It completes or fails with its handler, or ends first: cancelled by its
 * own caller or by revoking its token, by the server stopping, by its deadline (330 s), or by the client
 * going away (found by polling the connection).
 * Leaving `running` stops the handler actor, whose AbortSignal stops the database work.
 */
export const inflightRequestMachine = setup({
  types: {
    input: {} as InflightInput,
    context: {} as Context,
    events: {} as { type: 'cancel' } | { type: 'revoke' } | { type: 'shutdown' } | { type: 'disconnect' },
  },
  actors: {
    handler: fromPromise<Record<string, unknown>, Pick<InflightInput, 'work'>>(({ input, signal }) => input.work(signal)),
  },
  delays: {
    deadline: ({ context }) => context.deadlineMs ?? 0,
    poll: unprovided('poll'),
  },
  guards: { hasDeadline: ({ context }) => context.deadlineMs !== null },
  actions: {
    checkConnection: enqueueActions(({ context, enqueue }) => {
      if (!context.connected()) enqueue.raise({ type: 'disconnect' });
    }),
    settle: ({ context }) => context.settle(context.outcome as InflightOutcome),
  },
}).createMachine({
  id: 'inflightRequest',
  context: ({ input }) => input,
  initial: 'running',
  states: {
    running: {
      invoke: {
        src: 'handler',
        input: ({ context }) => ({ work: context.work }),
        onDone: { target: 'completed', actions: assign({ outcome: ({ event }) => ({ ok: true, result: event.output }) }) },
        onError: { target: 'failed', actions: assign({ outcome: ({ event }) => ({ ok: false, error: event.error }) }) },
      },
      after: { deadline: { guard: 'hasDeadline', target: 'timedOut' } },
      on: {
        cancel: { target: 'cancelled', actions: assign({ outcome: ended('cancelled') }) },
        revoke: {
          target: 'cancelled',
          actions: assign({ outcome: ended('revoked') }),
        },
        shutdown: {
          target: 'cancelled',
          actions: assign({ outcome: ended('shutdown') }),
        },
        disconnect: 'disconnected',
      },
      initial: 'watching',
      states: {
        watching: { after: { poll: { target: 'watching', reenter: true, actions: 'checkConnection' } } },
      },
    },
    completed: { type: 'final', entry: 'settle' },
    failed: { type: 'final', entry: 'settle' },
    cancelled: { type: 'final', entry: 'settle' },
    timedOut: {
      type: 'final',
      entry: [
        assign({ outcome: ended('timedOut') }),
        'settle',
      ],
    },
    // Nobody is left to answer: the work is stopped, and the caller hears why.
    disconnected: {
      type: 'final',
      entry: [assign({ outcome: ended('disconnected') }), 'settle'],
    },
  },
});
