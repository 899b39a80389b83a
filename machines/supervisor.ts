import { type AnyActorRef, assertEvent, enqueueActions, setup, spawnChild, stopChild } from 'xstate';
import { type ConsentInput, consentMachine } from './consent.js';
import { type InflightInput, inflightRequestMachine } from './inflightRequest.js';
import { type SubscriptionInput, subscriptionMachine } from './subscription.js';
import { type PairingCodeInput, pairingCodeMachine } from './pairingCode.js';
import { type PairingRequestInput, pairingRequestMachine } from './pairingRequest.js';

export type SupervisorEvent =
  | { type: 'pairing.open'; input: PairingRequestInput }
  | { type: 'code.issue'; input: PairingCodeInput }
  | { type: 'request.start'; key: string; input: InflightInput }
  | { type: 'consent.ask'; input: ConsentInput }
  | { type: 'subscription.start'; key: string; input: SubscriptionInput }
  | { type: 'request.cancel'; principalId: string; requestId: string | number }
  | { type: 'token.revoked'; principalId: string }
  | { type: 'server.stopping' };

/** Ids of the supervisor's children: the machine name, then the key of the thing it lives for. */
export const pairingRequestId = (id: string) => `pairingRequest:${id}`;
export const pairingCodeId = (code: string) => `pairingCode:${code}`;
export const inflightRequestId = (key: string) => `inflightRequest:${key}`;
export const consentId = (id: string) => `consent:${id}`;
export const subscriptionId = (key: string) => `subscription:${key}`;

type Caller = Pick<InflightInput, 'principalId' | 'requestId'>;

/** The running requests and open subscriptions among the children, with their caller and request id. */
function requests(children: Record<string, AnyActorRef | undefined>): [AnyActorRef, Caller][] {
  return Object.entries(children)
    .filter(([id]) => id.startsWith(inflightRequestId('')) || id.startsWith(subscriptionId('')))
    .map(([, child]) => [child as AnyActorRef, (child as AnyActorRef).getSnapshot().context as Caller]);
}

export type ChildDone = { type: `xstate.done.actor.${string}`; actorId: string; output?: unknown };

/**
 * The root of the actor system: spawns pairing requests, codes, in-flight requests, consent dialogs and
 * subscriptions; routes
 * cancellation by (caller, request id), fans a revoked token out to its requests, ends every request
 * when the server stops; reports each child that reaches a final state (`childDone`, provided by the
 * application) and stops it at once, so the live-actor count returns to its baseline.
 */
export const supervisorMachine = setup({
  types: { events: {} as SupervisorEvent | ChildDone },
  actors: {
    pairingRequest: pairingRequestMachine,
    pairingCode: pairingCodeMachine,
    inflightRequest: inflightRequestMachine,
    consent: consentMachine,
    subscription: subscriptionMachine,
  },
  actions: { childDone: (_, _done: ChildDone) => {} },
}).createMachine({
  id: 'supervisor',
  initial: 'running',
  states: {
    running: {
      on: {
        'pairing.open': {
          actions: spawnChild('pairingRequest', {
            id: ({ event }) => pairingRequestId(event.input.id),
            input: ({ event }) => {
              assertEvent(event, 'pairing.open');
              return event.input;
            },
          }),
        },
        'code.issue': {
          actions: spawnChild('pairingCode', {
            id: ({ event }) => pairingCodeId(event.input.code),
            input: ({ event }) => {
              assertEvent(event, 'code.issue');
              return event.input;
            },
          }),
        },
        'request.start': {
          actions: spawnChild('inflightRequest', {
            id: ({ event }) => inflightRequestId(event.key),
            input: ({ event }) => {
              assertEvent(event, 'request.start');
              return event.input;
            },
          }),
        },
        'consent.ask': {
          actions: spawnChild('consent', {
            id: ({ event }) => consentId(event.input.id),
            input: ({ event }) => {
              assertEvent(event, 'consent.ask');
              return event.input;
            },
          }),
        },
        'subscription.start': {
          actions: spawnChild('subscription', {
            id: ({ event }) => subscriptionId(event.key),
            input: ({ event }) => {
              assertEvent(event, 'subscription.start');
              return event.input;
            },
          }),
        },
        // A caller can cancel only its own requests.
        'request.cancel': {
          actions: enqueueActions(({ event, self, enqueue }) => {
            for (const [child, input] of requests(self.getSnapshot().children)) {
              if (input.principalId === event.principalId && input.requestId === event.requestId) {
                enqueue.sendTo(child, { type: 'cancel' });
              }
            }
          }),
        },
        'token.revoked': {
          actions: enqueueActions(({ event, self, enqueue }) => {
            for (const [child, input] of requests(self.getSnapshot().children)) {
              if (input.principalId === event.principalId) enqueue.sendTo(child, { type: 'revoke' });
            }
          }),
        },
        'server.stopping': {
          actions: enqueueActions(({ self, enqueue }) => {
            for (const [child] of requests(self.getSnapshot().children)) enqueue.sendTo(child, { type: 'shutdown' });
          }),
        },
        'xstate.done.actor.*': {
          actions: [
            { type: 'childDone', params: ({ event }) => event as ChildDone },
            stopChild(({ event }) => (event as ChildDone).actorId),
          ],
        },
      },
    },
  },
});
