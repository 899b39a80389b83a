import type { InflightEnding, InflightInput, InflightOutcome } from '../../machines/inflightRequest.js';
import { inflightRequestId, type Supervisor } from '../../machines/supervisor.js';
import { REQUESTS } from '../core/contract.js';
import { ErrorCode, ProtocolError } from '../core/errors.js';
import { ActorKeys } from './actorKeys.js';

/**
 * The handler's AbortSignal, made on first use: most requests answer without ever looking at it, and an
 * AbortController costs more than the rest of such a request's bookkeeping.
 */
export type SignalSource = () => AbortSignal;

export type RequestInput = Omit<InflightInput, 'settle' | 'work'> & {
  work: (signal: SignalSource) => Promise<Record<string, unknown>>;
};

/** How a request ended: its handler's result or error, or the contract's error for why it was stopped. */
export type RequestOutcome = { ok: true; result: Record<string, unknown> } | { ok: false; error: unknown };

const ENDINGS: Record<InflightEnding, () => ProtocolError> = {
  cancelled: () => new ProtocolError(ErrorCode.RequestCancelled, 'Request cancelled'),
  revoked: () => new ProtocolError(ErrorCode.RequestCancelled, 'Request cancelled: the token was revoked'),
  shutdown: () => new ProtocolError(ErrorCode.ServerUnavailable, 'Sluice is shutting down'),
  timedOut: () => new ProtocolError(ErrorCode.RequestTimeout, `Request timeout: the handler ran past its ${REQUESTS.handlerDeadlineMs / 1_000} s deadline`),
  disconnected: () => new ProtocolError(ErrorCode.RequestCancelled, 'The client disconnected'),
};

const outcomeOf = (outcome: InflightOutcome): RequestOutcome =>
  'ended' in outcome ? { ok: false, error: ENDINGS[outcome.ended]() } : outcome;

/** A request whose handler has started but which is not yet an actor. */
type Starting = {
  input: RequestInput;
  work: Promise<Record<string, unknown>>;
  /** Hands the request's signal over to its actor's. */
  adopt: (actorSignal: AbortSignal) => void;
  settle: (outcome: RequestOutcome) => void;
};

/**
 * Requests as actors. A handler starts at once; if it settles before control returns to the event loop,
 * nothing could have reached the request (cancellations, revocations, timers and disconnects all arrive
 * as later turns of the loop), so it is answered directly. Otherwise it becomes an `inflightRequest`
 * child of the supervisor at the end of that turn — or sooner, the moment anything addresses running
 * requests — and from then on only the actor decides how it ends.
 */
export class InflightRequests {
  readonly #supervisor: Supervisor;
  /** Reused keys: see ActorKeys. */
  readonly keys = new ActorKeys(inflightRequestId);
  readonly #starting = new Set<Starting>();
  #promotionQueued = false;

  constructor(supervisor: Supervisor) {
    this.#supervisor = supervisor;
  }

  run(input: RequestInput): Promise<RequestOutcome> {
    return new Promise((settle) => {
      let controller: AbortController | undefined;
      let actorSignal: AbortSignal | undefined;
      const signal = () => actorSignal ?? (controller ??= new AbortController()).signal;
      const adopt = (handed: AbortSignal) => {
        if (controller) handed.addEventListener('abort', () => controller?.abort(handed.reason), { once: true });
        else actorSignal = handed;
      };
      let work: Promise<Record<string, unknown>>;
      try {
        work = input.work(signal);
      } catch (error) {
        settle({ ok: false, error });
        return;
      }
      const starting: Starting = { input, work, adopt, settle };
      this.#starting.add(starting);
      work.then(
        (result) => this.#starting.delete(starting) && settle({ ok: true, result }),
        (error: unknown) => this.#starting.delete(starting) && settle({ ok: false, error }),
      );
      if (!this.#promotionQueued) {
        this.#promotionQueued = true;
        setImmediate(() => this.#promote());
      }
    });
  }

  /** `notifications/cancelled`: ends the caller's own request with that id, if it is running. */
  cancel(principalId: string, requestId: string | number): void {
    this.#promote();
    this.#supervisor.send({ type: 'request.cancel', principalId, requestId });
  }

  /** A revoked token's requests end with `-33002`. */
  revoke(principalId: string): void {
    this.#promote();
    this.#supervisor.send({ type: 'token.revoked', principalId });
  }

  /** The server is stopping: every request ends with `-33000`. */
  stopAll(): void {
    this.#promote();
    this.#supervisor.send({ type: 'server.stopping' });
  }

  /** Every request still running becomes an actor, whose handler is the work already under way. */
  #promote(): void {
    this.#promotionQueued = false;
    for (const starting of this.#starting) {
      this.#starting.delete(starting);
      const { input, work, adopt, settle } = starting;
      const handOver = (actorSignal: AbortSignal) => {
        adopt(actorSignal);
        return work;
      };
      this.#supervisor.send({
        type: 'request.start',
        key: this.keys.take(),
        input: { ...input, work: handOver, settle: (outcome) => settle(outcomeOf(outcome)) },
      });
    }
  }
}
