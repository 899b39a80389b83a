import { engineModule } from '../db/engines/registry.js';
import { RESULTS } from '../core/contract.js';
import { ToolError } from '../core/errors.js';
import type { Engine } from '../db/database.js';
import type { Schema } from './schema.js';

/** A tool's one SQL statement, as a client sends it. */
export const sqlProperty = {
  type: 'string',
  description: `Exactly one SQL statement (at most ${RESULTS.maxSqlBytes / 1024} KB).`,
  minLength: 1,
  maxLength: RESULTS.maxSqlBytes,
} as const satisfies Schema;

/** The values bound to a statement's placeholders, in order. */
export const paramsProperty = {
  type: 'array',
  description: 'Values bound to the statement’s placeholders, in order.',
  items: {},
  maxItems: RESULTS.maxParams,
} as const satisfies Schema;

/** How long a statement may run, as execute_query takes it. */
export const timeoutSecondsProperty = {
  type: 'integer',
  minimum: 1,
  maximum: RESULTS.maxTimeoutSeconds,
  default: RESULTS.defaultTimeoutSeconds,
} as const satisfies Schema;

/** Refuses SQL over the size limit (counted in bytes, which the schema's characters do not bound). */
export function checkSqlSize(sql: string): void {
  if (Buffer.byteLength(sql) > RESULTS.maxSqlBytes) throw new ToolError('invalid_argument', `the SQL is over ${RESULTS.maxSqlBytes / 1024} KB`);
}

/** Bound values as the engine takes them: JSON scalars only; SQLite has no booleans, so 1 and 0. */
export function boundValues(values: unknown[], engine: Engine, what = 'params'): unknown[] {
  if (values.some((v) => v !== null && typeof v === 'object')) {
    throw new ToolError('invalid_argument', `${what} must be strings, numbers, booleans or null`);
  }
  return values.map((v) => (typeof v === 'boolean' && engineModule(engine).bindsBooleansAsNumbers ? Number(v) : v));
}
