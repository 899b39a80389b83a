import type { SavedConnection } from '../db/savedConnections.js';
import { canUseConnection, forbidden } from '../auth/access.js';
import type { Database, TableDescription } from '../db/database.js';
import { ToolError } from '../core/errors.js';
import type { Schema } from './schema.js';
import type { CallContext } from './types.js';

export const connectionIdProperty = {
  type: 'string',
  description: 'The id of a saved connection, as list_connections returns it.',
  minLength: 1,
  maxLength: 64,
} as const satisfies Schema;

export const schemaProperty = {
  type: 'string',
  description: 'Schema name; defaults to the connection’s default schema (main on SQLite, public on PostgreSQL, the connection’s database on MySQL).',
  minLength: 1,
  maxLength: 256,
} as const satisfies Schema;

export const tableProperty = {
  type: 'string',
  description: 'Table or view name, unquoted.',
  minLength: 1,
  maxLength: 256,
} as const satisfies Schema;

/** The connections this principal may see, in saved order. */
export function visibleConnections(ctx: CallContext): SavedConnection[] {
  return ctx.catalog.all().filter((c) => canUseConnection(ctx.principal, c));
}

/**
 * The connection a call names. Unknown ids are `not_found`; a connection hidden from the caller (outside
 * its allowlist, external access blocked, AI policy never) is refused with `-33007`.
 */
export function useConnection(ctx: CallContext, id: string): { connection: SavedConnection; db: Database } {
  const connection = ctx.catalog.get(id);
  if (!connection) throw new ToolError('not_found', `no connection with id "${id}"; call list_connections`);
  if (!canUseConnection(ctx.principal, connection)) {
    throw forbidden(`Forbidden: connection "${id}" is not available to this client`);
  }
  return { connection, db: ctx.catalog.shares.forToken(ctx.catalog.database(connection), connection.id, ctx.principal.id) };
}

export async function describeOrFail(
  db: Database,
  schema: string | undefined,
  table: string,
  signal: AbortSignal,
): Promise<TableDescription> {
  const description = await db.describeTable(schema ?? db.defaultSchema(), table, signal);
  if (!description) throw new ToolError('not_found', `no table or view named "${table}"; call list_tables`);
  return description;
}
