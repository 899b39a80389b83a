import type { InflightInput, InflightOutcome } from '../../machines/inflightRequest.js';
import { inflightRequestId, type Supervisor } from '../../machines/supervisor.js';
import { ActorKeys } from './actorKeys.js';

/** Requests as actors: each runs as an `inflightRequest` child of the supervisor until it settles. */
export class InflightRequests {
  readonly #supervisor: Supervisor;
  /** Reused keys: see ActorKeys. */
  readonly keys = new ActorKeys(inflightRequestId);

  constructor(supervisor: Supervisor) {
    this.#supervisor = supervisor;
  }

  run(input: Omit<InflightInput, 'settle'>): Promise<InflightOutcome> {
    return new Promise((settle) => {
      this.#supervisor.send({ type: 'request.start', key: this.keys.take(), input: { ...input, settle } });
    });
  }


  /** `notifications/cancelled`: ends the caller's own request with that id, if it is running. */
  cancel(principalId: string, requestId: string | number): void {
    this.#supervisor.send({ type: 'request.cancel', principalId, requestId });
  }

  /** A revoked token's requests end with `-33002`. */
  revoke(principalId: string): void {
    this.#supervisor.send({ type: 'token.revoked', principalId });
  }

  /** The server is stopping: every request ends with `-33000`. */
  stopAll(): void {
    this.#supervisor.send({ type: 'server.stopping' });
  }
}
