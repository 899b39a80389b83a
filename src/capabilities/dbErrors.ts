import { DriverFailure, type FailureKind } from '../db/driverFailure.js';
import { SqlRefusal } from '../sql/sqlRefusal.js';
import { ErrorCode, ProtocolError, ToolError, type ToolErrorCode } from '../core/errors.js';

/**
 * The one place a failure of the SQL or db layer becomes the error the client sees: a tool error with
 * its hint, or (a statement past its timeout) the protocol error `-33003`.
 */

/** PostgreSQL's and MySQL's codes for a database that does not exist (a call's `database`). */
const UNKNOWN_DATABASE = new Set(['3D000', '1049']);

/** The tool error of each kind of driver failure; a statement that writes, refused as a read, failed as a query. */
const TOOL_CODES: Record<Exclude<FailureKind, 'statement_timeout'>, ToolErrorCode> = {
  not_connected: 'not_connected',
  timeout: 'timeout',
  not_read_only: 'query_failed',
  query_failed: 'query_failed',
  invalid_argument: 'invalid_argument',
  not_found: 'not_found',
  unsupported: 'unsupported',
};

/** A tool error whose message the database wrote: it may quote values, so the answer fences it as data. */
export class DatabaseToolError extends ToolError {}

/** Turns whatever a driver or the SQL layer threw into the typed error family (driver messages are redacted already). */
export function fromDriverError(error: unknown): ProtocolError | ToolError {
  if (error instanceof ProtocolError || error instanceof ToolError) return error;
  if (error instanceof SqlRefusal) return new ToolError(error.kind, error.message);
  if (!(error instanceof DriverFailure)) return new ToolError('internal_failure', 'the tool failed unexpectedly');
  if (error.kind === 'statement_timeout') return new ProtocolError(ErrorCode.RequestTimeout, error.message);
  if (UNKNOWN_DATABASE.has(error.engineCode ?? '')) {
    return new DatabaseToolError('not_found', `${error.message}; call list_databases`, error.engineCode);
  }
  return new DatabaseToolError(TOOL_CODES[error.kind], error.message, error.engineCode);
}
