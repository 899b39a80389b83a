/**
 * Keys for the actors spawned per request, reused once their actor is gone. XState remembers each event
 * type a machine has handled; every child's end is an event named after the child's id, so fresh ids
 * for every request would grow the supervisor without bound (about 150 bytes each, measured). Reused
 * keys keep that to the most requests ever running at once.
 */
export class ActorKeys {
  readonly #prefix: string;
  readonly #free: string[] = [];
  #next = 0;

  /** `idOf` makes an actor's id from its key (`inflightRequestId`, `subscriptionId`). */
  constructor(idOf: (key: string) => string) {
    this.#prefix = idOf('');
  }

  take(): string {
    return this.#free.pop() ?? String(this.#next++);
  }

  /** The supervisor reaped a child: if it was one of these, its key may name the next one. */
  reaped(actorId: string): void {
    if (actorId.startsWith(this.#prefix)) this.#free.push(actorId.slice(this.#prefix.length));
  }
}
