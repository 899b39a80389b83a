import { type AnyStateMachine, createActor, type InspectionEvent, type Observer } from 'xstate';
import { consentMachine } from '../../machines/consent.js';
import { heldReadMachine } from '../../machines/heldRead.js';
import { inflightRequestMachine } from '../../machines/inflightRequest.js';
import { legacySessionMachine } from '../../machines/legacySession.js';
import { pairingCodeMachine } from '../../machines/pairingCode.js';
import { pairingRequestMachine } from '../../machines/pairingRequest.js';
import { subscriptionMachine } from '../../machines/subscription.js';
import { type ChildDone, type Supervisor, supervisorMachine } from '../../machines/supervisor.js';
import type { AppClock } from '../core/clock.js';
import { LEGACY, PAIRING, REQUESTS, RESULT_CURSORS, SUBSCRIPTIONS } from '../core/contract.js';
import { verifierMatches } from '../pairing/pkce.js';

type InspectionObserver = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

// The statecharts with what they leave to Sluice: the contract's numbers and the PKCE check. The
// supervisor, the inspector and the tests all use these, never the bare machines.

const pairingRequest = pairingRequestMachine.provide({ delays: { approvalWindow: PAIRING.approvalWindowMs } });

const pairingCode = pairingCodeMachine.provide({
  delays: { codeLifetime: PAIRING.codeLifetimeMs, tombstone: PAIRING.codeTombstoneMs },
  guards: { verifierMatches: ({ context, event }) => verifierMatches(event.verifier, context.challenge) },
});

const inflightRequest = inflightRequestMachine.provide({ delays: { poll: REQUESTS.disconnectPollMs } });

const subscription = subscriptionMachine.provide({
  delays: { keepAlive: SUBSCRIPTIONS.keepAliveMs, poll: SUBSCRIPTIONS.disconnectPollMs },
});

const heldRead = heldReadMachine.provide({ delays: { idle: RESULT_CURSORS.idleMs } });

const supervisor = supervisorMachine.provide({
  actors: {
    pairingRequest,
    pairingCode,
    inflightRequest,
    consent: consentMachine,
    subscription,
    legacySession: legacySessionMachine,
    heldRead,
  },
});

/** Every machine Sluice runs, the supervisor first. */
export const runtimeMachines: AnyStateMachine[] = [
  supervisor,
  pairingRequest,
  pairingCode,
  inflightRequest,
  consentMachine,
  subscription,
  legacySessionMachine,
  heldRead,
];

/** Starts the root of the actor system; `childDone` hears each child that reached a final state. */
export function startSupervisor(options: {
  clock: AppClock;
  childDone: (done: ChildDone) => void;
  inspect?: InspectionObserver;
}): Supervisor {
  const { clock, childDone, inspect } = options;
  const actor = createActor(
    supervisor.provide({ actions: { childDone: (_, done: ChildDone) => childDone(done) } }),
    { clock, input: { maxLegacySessions: LEGACY.maxSessions }, ...(inspect ? { inspect } : {}) },
  );
  actor.start();
  return actor as unknown as Supervisor;
}
