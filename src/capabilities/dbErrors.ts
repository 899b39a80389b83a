import { DriverFailure } from '../db/driverFailure.js';
import { ProtocolError, ToolError } from '../core/errors.js';

/** PostgreSQL's and MySQL's codes for a database that does not exist (a call's `database`). */
const UNKNOWN_DATABASE = new Set(['3D000', '1049']);

/** Turns whatever a driver threw into the typed error family (driver messages are redacted already). */
export function fromDriverError(error: unknown): ProtocolError | ToolError {
  if (error instanceof ProtocolError || error instanceof ToolError) return error;
  if (error instanceof DriverFailure && UNKNOWN_DATABASE.has(error.engineCode ?? '')) {
    return new ToolError('not_found', `${error.message}; call list_databases`, error.engineCode);
  }
  if (error instanceof DriverFailure) {
    return new ToolError(error.kind === 'not_read_only' ? 'query_failed' : error.kind, error.message, error.engineCode);
  }
  return new ToolError('internal_failure', 'the tool failed unexpectedly');
}
