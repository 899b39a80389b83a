import { createHash } from 'node:crypto';
import type { AnyActor, InspectionEvent } from 'xstate';

/** The machines the inspector draws; any other actor (a handler's promise) is not shown. */
export const INSPECTED_MACHINES = new Set([
  'supervisor',
  'pairingRequest',
  'pairingCode',
  'inflightRequest',
  'consent',
  'subscription',
  'legacySession',
  'heldRead',
]);

/** Machines whose actor ids are reused once an actor is gone. */
const REUSED_IDS = new Set(['inflightRequest', 'subscription', 'heldRead']);

export type Principal = { id: string; name: string } | null;

export type ActorFrame = {
  type: 'actor';
  actorId: string;
  machine: string;
  parentId: string | null;
  principal: Principal;
  state: string;
  at: number;
};

export type InspectorFrame =
  | { type: 'live'; actors: ActorFrame[]; now: number }
  | ActorFrame
  | { type: 'transition'; actorId: string; machine: string; event: string; from: string; to: string; status: string; at: number }
  | { type: 'stopped'; actorId: string; machine: string; at: number };

type Live = { frame: ActorFrame; ref: AnyActor };

/** `<machine>:<8 hex digits>`: stable for one actor, and never the id itself (it can hold a code or a session id). */
export function publicActorId(machine: string, id: string): string {
  return `${machine}:${createHash('sha256').update(id).digest('hex').slice(0, 8)}`;
}

/** `running`, `running.watching` (nested), `a.b,c.d` (parallel regions). */
const stateName = (value: unknown): string => {
  if (typeof value === 'string') return value;
  return Object.entries((value ?? {}) as Record<string, unknown>)
    .map(([key, inner]) => {
      const innerName = stateName(inner);
      return innerName ? `${key}.${innerName}` : key;
    })
    .join(',');
};

const machineOf = (ref: AnyActor): string | undefined => {
  const id = (ref.logic as { id?: unknown }).id;
  return typeof id === 'string' && INSPECTED_MACHINES.has(id) ? id : undefined;
};

/**
 * XState's inspection stream, made fit for a web page: live actors by machine, and one frame per change.
 * Nothing from an actor's context or an event's payload leaves here except the state's name, the
 * event's type and the principal's id and name (see docs/console.md).
 */
export class InspectorFeed {
  readonly #live = new Map<AnyActor, Live>();
  /** The type of the last event each actor received: what moved a child the supervisor reaped at once. */
  readonly #lastEvent = new WeakMap<AnyActor, string>();
  readonly #listeners = new Set<(frame: InspectorFrame) => void>();
  readonly #supervisor: AnyActor;
  readonly #now: () => number;
  readonly #principalName: (id: string) => string | undefined;
  #inspection: { unsubscribe(): void } | undefined;

  constructor(supervisor: AnyActor, now: () => number, principalName: (id: string) => string | undefined) {
    this.#supervisor = supervisor;
    this.#now = now;
    this.#principalName = principalName;
  }

  /** The first frame of a page's stream: every live actor, and the application's clock. */
  live(): InspectorFrame {
    return { type: 'live', actors: [...this.#live.values()].map((entry) => entry.frame), now: this.#now() };
  }

  /**
   * Frames from now on. XState's inspection stream is followed only while a page listens: every request
   * is an actor, and inspecting each of its steps is a cost no one should pay for a closed page.
   */
  subscribe(listener: (frame: InspectorFrame) => void): () => void {
    if (this.#listeners.size === 0) this.#start();
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#stop();
    };
  }

  #start(): void {
    const at = this.#now();
    for (const ref of [this.#supervisor, ...Object.values(childrenOf(this.#supervisor))]) {
      this.#snapshot(ref, 'xstate.init', ref.getSnapshot() as Snapshot, at);
    }
    this.#inspection = this.#supervisor.system.inspect((event: InspectionEvent) => {
      if (event.type === '@xstate.event') this.#lastEvent.set(event.actorRef as AnyActor, event.event.type);
      if (event.type === '@xstate.snapshot') {
        this.#snapshot(event.actorRef as AnyActor, event.event.type, event.snapshot as unknown as Snapshot, this.#now());
      }
    });
  }

  #stop(): void {
    this.#inspection?.unsubscribe();
    this.#inspection = undefined;
    this.#live.clear();
  }

  #emit(frame: InspectorFrame): void {
    for (const listener of this.#listeners) listener(frame);
  }

  #snapshot(ref: AnyActor, eventType: string, snapshot: Snapshot, at: number): void {
    const machine = machineOf(ref);
    if (!machine) return;
    const known = this.#live.get(ref);
    const state = stateName(snapshot.value);
    if (!known) {
      if (snapshot.status !== 'active') return;
      const frame: ActorFrame = {
        type: 'actor',
        // Per-request actors' ids are reused (see ActorKeys): their session id tells two of them apart.
        actorId: publicActorId(machine, REUSED_IDS.has(machine) ? `${ref.id}#${ref.sessionId}` : ref.id),
        machine,
        parentId: ref._parent ? this.#live.get(ref._parent as AnyActor)?.frame.actorId ?? null : null,
        principal: this.#principal(snapshot.context),
        state,
        at,
      };
      this.#live.set(ref, { frame, ref });
      this.#emit(frame);
      return;
    }
    this.#moved(known, eventType, snapshot, at);
    if (snapshot.status !== 'active') this.#stopped(ref, known, at);
    if (machine === 'supervisor') this.#reapStoppedChildren(ref, at);
  }

  /** A transition frame, when the actor's state or status is not the one last sent. */
  #moved(entry: Live, eventType: string, snapshot: Snapshot, at: number): void {
    const from = entry.frame.state;
    const to = stateName(snapshot.value);
    // Stopped from outside in the same state: the `stopped` frame says all there is.
    if (from === to && (snapshot.status === 'active' || snapshot.status === 'stopped')) return;
    entry.frame = { ...entry.frame, state: to };
    const { actorId, machine } = entry.frame;
    this.#emit({ type: 'transition', actorId, machine, event: eventType, from, to, status: snapshot.status, at });
  }

  /**
   * A child stopped from outside (stopChild) reports nothing itself: it is simply no longer a child. The
   * supervisor reaps a child that reached its end before the child's own last snapshot is reported, so
   * that last step is sent from here.
   */
  #reapStoppedChildren(supervisor: AnyActor, at: number): void {
    const children = new Set(Object.values(childrenOf(supervisor)));
    for (const [ref, entry] of this.#live) {
      if (ref._parent !== supervisor || children.has(ref)) continue;
      this.#moved(entry, this.#lastEvent.get(ref) ?? '', ref.getSnapshot() as Snapshot, at);
      this.#stopped(ref, entry, at);
    }
  }

  #stopped(ref: AnyActor, entry: Live, at: number): void {
    this.#live.delete(ref);
    this.#emit({ type: 'stopped', actorId: entry.frame.actorId, machine: entry.frame.machine, at });
  }

  #principal(context: unknown): Principal {
    const { principalId, tokenId } = (context ?? {}) as { principalId?: unknown; tokenId?: unknown };
    const id = typeof principalId === 'string' ? principalId : typeof tokenId === 'string' ? tokenId : undefined;
    if (id === undefined) return null;
    return { id, name: this.#principalName(id) ?? id };
  }
}

type Snapshot = { value: unknown; status: string; context: unknown };

const childrenOf = (actor: AnyActor) => (actor.getSnapshot() as { children: Record<string, AnyActor> }).children;
