import { assertEvent, setup, spawnChild, stopChild } from 'xstate';
import { type PairingCodeInput, pairingCodeMachine } from './pairingCode.js';
import { type PairingRequestInput, pairingRequestMachine } from './pairingRequest.js';

export type SupervisorEvent =
  | { type: 'pairing.open'; input: PairingRequestInput }
  | { type: 'code.issue'; input: PairingCodeInput };

/** Ids of the supervisor's children: the machine name, then the key of the thing it lives for. */
export const pairingRequestId = (id: string) => `pairingRequest:${id}`;
export const pairingCodeId = (code: string) => `pairingCode:${code}`;

export type ChildDone = { type: `xstate.done.actor.${string}`; actorId: string; output?: unknown };

/**
 * The root of the actor system: spawns pairing requests and codes, reports each child that reaches a
 * final state (`childDone`, provided by the application) and stops it at once, so the live-actor count
 * returns to its baseline.
 */
export const supervisorMachine = setup({
  types: { events: {} as SupervisorEvent | ChildDone },
  actors: { pairingRequest: pairingRequestMachine, pairingCode: pairingCodeMachine },
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
