import { type Actor, type AnyActorRef, assign, assertEvent, enqueueActions, setup, spawnChild, stopChild } from 'xstate';
import { type ConsentInput, consentMachine } from './consent.js';
import { type HeldReadInput, heldReadMachine } from './heldRead.js';
import { type InflightInput, inflightRequestMachine } from './inflightRequest.js';
import { type LegacySessionInput, legacySessionMachine } from './legacySession.js';
import { type SubscriptionInput, subscriptionMachine } from './subscription.js';
import { type PairingCodeInput, pairingCodeMachine } from './pairingCode.js';
import { type PairingRequestInput, pairingRequestMachine } from './pairingRequest.js';

export type SupervisorEvent =
  | { type: 'pairing.open'; input: PairingRequestInput }
  | { type: 'code.issue'; input: PairingCodeInput }
  | { type: 'request.start'; key: string; input: InflightInput }
  | { type: 'consent.ask'; input: ConsentInput }
  | { type: 'subscription.start'; key: string; input: SubscriptionInput }
  | { type: 'read.hold'; key: string; input: HeldReadInput }
  | { type: 'session.open'; input: LegacySessionInput }
  | { type: 'session.touch'; sessionId: string }
  | { type: 'request.cancel'; principalId: string; requestId: string | number }
  | { type: 'token.revoked'; principalId: string }
  | { type: 'server.stopping' };

/** Ids of the supervisor's children: the machine name, then the key of the thing it lives for. */
export const pairingRequestId = (id: string) => `pairingRequest:${id}`;
export const pairingCodeId = (code: string) => `pairingCode:${code}`;
export const inflightRequestId = (key: string) => `inflightRequest:${key}`;
export const consentId = (id: string) => `consent:${id}`;
export const subscriptionId = (key: string) => `subscription:${key}`;
export const legacySessionId = (sessionId: string) => `legacySession:${sessionId}`;
export const heldReadId = (key: string) => `heldRead:${key}`;

type Caller = Pick<InflightInput, 'principalId' | 'requestId'>;

/** The children of these kinds, with their context (which names their caller). */
function childrenOf<T>(children: Record<string, AnyActorRef | undefined>, kinds: string[]): [AnyActorRef, T][] {
  return Object.entries(children)
    .filter(([id]) => kinds.some((kind) => id.startsWith(`${kind}:`)))
    .map(([, child]) => [child as AnyActorRef, (child as AnyActorRef).getSnapshot().context as T]);
}

const requests = (children: Record<string, AnyActorRef | undefined>) =>
  childrenOf<Caller>(children, ['inflightRequest', 'subscription']);

export type ChildDone = { type: `xstate.done.actor.${string}`; actorId: string; output?: unknown };

/**
 * The root of the actor system: spawns pairing requests, codes, in-flight requests, consent dialogs,
 * subscriptions and held reads; routes cancellation by (caller, request id), fans a revoked token out
 * to its requests, sessions and held reads, ends every request and held read when the server stops; reports each child that reaches a final state (`childDone`, provided by the
 * application) and stops it at once, so the live-actor count returns to its baseline.
 */
export const supervisorMachine = setup({
  types: {
    events: {} as SupervisorEvent | ChildDone,
    /** How many legacy sessions may be open at once. */
    input: {} as { maxLegacySessions: number },
    /** Legacy session ids, least recently used first. */
    context: {} as { sessions: string[]; maxLegacySessions: number },
  },
  actors: {
    pairingRequest: pairingRequestMachine,
    pairingCode: pairingCodeMachine,
    inflightRequest: inflightRequestMachine,
    consent: consentMachine,
    subscription: subscriptionMachine,
    legacySession: legacySessionMachine,
    heldRead: heldReadMachine,
  },
  actions: { childDone: (_, _done: ChildDone) => {} },
}).createMachine({
  id: 'supervisor',
  context: ({ input }) => ({ sessions: [], maxLegacySessions: input.maxLegacySessions }),
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
        'read.hold': {
          actions: spawnChild('heldRead', {
            id: ({ event }) => heldReadId(event.key),
            input: ({ event }) => {
              assertEvent(event, 'read.hold');
              return event.input;
            },
          }),
        },
        // One session more than the most allowed evicts the least recently used.
        'session.open': {
          actions: enqueueActions(({ context, event, enqueue, self }) => {
            const sessions = [...context.sessions];
            while (sessions.length >= context.maxLegacySessions) {
              const oldest = self.getSnapshot().children[legacySessionId(sessions.shift() as string)];
              if (oldest) enqueue.sendTo(oldest, { type: 'evict' });
            }
            enqueue.assign({ sessions: [...sessions, event.input.sessionId] });
            enqueue.spawnChild('legacySession', { id: legacySessionId(event.input.sessionId), input: event.input });
          }),
        },
        'session.touch': {
          actions: assign({
            sessions: ({ context, event }) =>
              context.sessions.includes(event.sessionId)
                ? [...context.sessions.filter((id) => id !== event.sessionId), event.sessionId]
                : context.sessions,
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
            for (const [child, session] of childrenOf<LegacySessionInput>(self.getSnapshot().children, ['legacySession'])) {
              if (session.principalId === event.principalId) enqueue.sendTo(child, { type: 'close' });
            }
            for (const [child, read] of childrenOf<HeldReadInput>(self.getSnapshot().children, ['heldRead'])) {
              if (read.principalId === event.principalId) enqueue.sendTo(child, { type: 'revoke' });
            }
          }),
        },
        'server.stopping': {
          actions: enqueueActions(({ self, enqueue }) => {
            for (const [child] of requests(self.getSnapshot().children)) enqueue.sendTo(child, { type: 'shutdown' });
            for (const [child] of childrenOf(self.getSnapshot().children, ['heldRead'])) enqueue.sendTo(child, { type: 'release' });
          }),
        },
        'xstate.done.actor.*': {
          actions: [
            { type: 'childDone', params: ({ event }) => event as ChildDone },
            assign({
              sessions: ({ context, event }) =>
                context.sessions.filter((id) => legacySessionId(id) !== (event as ChildDone).actorId),
            }),
            stopChild(({ event }) => (event as ChildDone).actorId),
          ],
        },
      },
    },
  },
});

export type Supervisor = Actor<typeof supervisorMachine>;

/** A live child of the supervisor, by its id. */
export function childOf(supervisor: Supervisor, id: string): AnyActorRef | undefined {
  return (supervisor.getSnapshot().children as Record<string, AnyActorRef | undefined>)[id];
}

/** The live children of one kind (`pairingRequest`, `consent`, …). */
export function childrenOfKind(supervisor: Supervisor, kind: string): AnyActorRef[] {
  return Object.values(supervisor.getSnapshot().children as Record<string, AnyActorRef>).filter((child) =>
    child.id.startsWith(`${kind}:`),
  );
}
