import { redact } from '../db/redact.js';
import { SqliteFailure } from '../db/sqlite/processPool.js';
import { ProtocolError, ToolError } from '../protocol/errors.js';

const UNREACHABLE_CODES = new Set(['SQLITE_CANTOPEN', 'SQLITE_NOTADB', 'SQLITE_CORRUPT', 'SQLITE_ABORT']);

/** Turns whatever a driver threw into the typed error family; messages are redacted here. */
export function fromDriverError(error: unknown): ProtocolError | ToolError {
  if (error instanceof ProtocolError || error instanceof ToolError) return error;
  if (error instanceof SqliteFailure) {
    const code = UNREACHABLE_CODES.has(error.code) ? 'not_connected' : 'query_failed';
    return new ToolError(code, redact(error.message));
  }
  return new ToolError('internal_failure', 'the tool failed unexpectedly');
}
