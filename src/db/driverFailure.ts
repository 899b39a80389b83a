import { redact } from './redact.js';

/**
 * How a database failed a statement, whatever the engine: `not_connected` (unreachable, or lost
 * mid-statement), `timeout` (did not answer in time while connecting), `not_read_only` (the engine
 * refused a statement sent as a read because it writes), `query_failed` (the database refused it),
 * `invalid_argument` (a connection option the driver was never given: it held a control character).
 */
export type FailureKind = 'not_connected' | 'timeout' | 'not_read_only' | 'query_failed' | 'invalid_argument';

/**
 * The message is redacted when the failure is made: the general rules plus the connection's own
 * secrets. `engineCode` (SQLSTATE, MySQL error number, SQLite result code) is what the activity log
 * keeps: a driver's message can quote the statement and its values, so it is never stored.
 */
export class DriverFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    secrets: readonly string[] = [],
    readonly engineCode?: string,
  ) {
    super(redact(message, secrets));
    this.name = 'DriverFailure';
  }
}
