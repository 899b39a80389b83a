import { randomUUID } from 'node:crypto';
import type { LegacySessionInput } from '../../machines/legacySession.js';
import { childOf, legacySessionId, type Supervisor } from '../../machines/supervisor.js';
import type { Principal } from '../auth/principal.js';
import type { ClientInfo } from '../protocol/era.js';
import { ErrorCode, ProtocolError } from '../core/errors.js';
import type { AppClock } from '../core/clock.js';

const sessionNotFound = () =>
  new ProtocolError(ErrorCode.SessionNotFound, 'Session not found: send initialize to start a new session');

/** Legacy sessions, each a `legacySession` child of the supervisor, which keeps the sixteen most recent. */
export class LegacySessions {
  readonly #supervisor: Supervisor;
  readonly #clock: AppClock;

  constructor(supervisor: Supervisor, clock: AppClock) {
    this.#supervisor = supervisor;
    this.#clock = clock;
  }

  open(principal: Principal, protocolVersion: string, clientInfo: ClientInfo | undefined): string {
    const sessionId = randomUUID();
    this.#supervisor.send({
      type: 'session.open',
      input: { sessionId, principalId: principal.id, protocolVersion, clientInfo, createdAt: this.#clock.now() },
    });
    return sessionId;
  }

  /**
   * The session a request names, touched as most recently used: `-33001` if it is gone or another
   * token's, `-32600` if the request's `MCP-Protocol-Version` header is not the session's.
   */
  use(sessionId: string, principal: Principal, versionHeader: string | string[] | undefined): LegacySessionInput {
    const session = childOf(this.#supervisor, legacySessionId(sessionId))?.getSnapshot().context as LegacySessionInput | undefined;
    if (!session || session.principalId !== principal.id) throw sessionNotFound();
    if (versionHeader !== undefined && versionHeader !== session.protocolVersion) {
      throw new ProtocolError(ErrorCode.InvalidRequest, `Invalid request: this session speaks ${session.protocolVersion}`);
    }
    this.#supervisor.send({ type: 'session.touch', sessionId });
    return session;
  }
}
