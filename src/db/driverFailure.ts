import { redact } from './redact.js';

/**
 * How a database failed a statement or refused a call, whatever the engine: `not_connected`
 * (unreachable, lost mid-statement, or the connection was taken out of use), `timeout` (did not answer
 * in time while connecting), `statement_timeout` (the statement ran past its timeout and was stopped),
 * `not_read_only` (the engine refused a statement sent as a read because it writes), `query_failed`
 * (the database refused it), `invalid_argument` (a statement that does not parse or prepare, or a
 * connection option the driver was never given: it held a control character), `not_found` (no such
 * schema, table, view or database), `unsupported` (the engine has no such feature).
 * `capabilities/dbErrors.ts` turns each kind into the error the client sees.
 */
export type FailureKind =
  | 'not_connected'
  | 'timeout'
  | 'statement_timeout'
  | 'not_read_only'
  | 'query_failed'
  | 'invalid_argument'
  | 'not_found'
  | 'unsupported';

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

/**
 * A statement past its timeout, every engine's: stopped in the database, or (SQLite, where Sluice ends
 * the query process itself) with the message that says so.
 */
export const statementTimeout = (message = 'The statement ran past its timeout and was stopped in the database'): DriverFailure =>
  new DriverFailure('statement_timeout', message);
