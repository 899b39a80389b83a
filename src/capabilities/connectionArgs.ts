import { engineModule } from '../db/engines/registry.js';
import type { SavedConnection } from '../db/connections/savedConnections.js';
import { canUseConnection, forbidden } from '../auth/access.js';
import type { Database, TableDescription } from '../db/database.js';
import { controlCharacterIn } from '../core/controlCharacters.js';
import { ToolError } from '../core/errors.js';
import { type PrivateColumns, privateColumns } from './privateColumns.js';
import type { Schema } from './schema.js';
import type { CallContext } from './types.js';

export const connectionIdProperty = {
  type: 'string',
  description: 'The id of a saved connection, as list_connections returns it.',
  minLength: 1,
  maxLength: 64,
} as const satisfies Schema;

/** The share key of every SQLite connection (see useConnection). */
const SQLITE_POOL_SHARE = '\u0000sqlite';

export const databaseProperty = {
  type: 'string',
  description: 'Another database on the connection’s server (PostgreSQL, MySQL); defaults to the connection’s own.',
  minLength: 1,
  maxLength: 256,
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

/**
 * The arguments of a tool that works on one connection: `connection_id` and `database`, then its own
 * `properties`; `required` names those it needs besides `connection_id`. Unknown arguments are refused.
 */
export function onConnection<const P extends Record<string, Schema>, const R extends keyof P & string = never>(
  properties: P,
  required: readonly R[] = [],
): ConnectionSchema<P, R> {
  return {
    type: 'object',
    properties: { connection_id: connectionIdProperty, database: databaseProperty, ...properties },
    required: ['connection_id', ...required],
    additionalProperties: false,
  };
}

/** The schema `onConnection` builds, its properties' own types kept so that a tool's arguments follow from it. */
export type ConnectionSchema<P extends Record<string, Schema>, R extends string> = {
  type: 'object';
  properties: { connection_id: typeof connectionIdProperty; database: typeof databaseProperty } & P;
  required: readonly ('connection_id' | R)[];
  additionalProperties: false;
};

/** The connections this principal may see, in saved order. */
export function visibleConnections(ctx: CallContext): SavedConnection[] {
  return ctx.catalog.all().filter((c) => canUseConnection(ctx.principal, c));
}

/**
 * Refuses a client string bound for a driver's connection options or a file path when it holds a
 * control character (src/core/controlCharacters.ts), naming the argument: `invalid_argument`.
 */
export function refuseControlCharacters(argument: string, value: string): void {
  const found = controlCharacterIn(value);
  if (found) throw new ToolError('invalid_argument', `${argument} must not contain a control character (it holds ${found})`);
}

/**
 * The connection a call names, on `database` when the call names another database of its server. Every
 * tool, resource and completion reaches a database through here, so `database`, which becomes a
 * connection option, is checked here first, before any driver or pool is touched. Unknown ids are
 * `not_found`; a connection hidden from the caller (outside its allowlist, external access blocked, AI
 * policy never) is refused with `-33007`. `key` names the connection on that database (the pools a
 * held read's session comes from, which its cursor is bound to); `privacy` guards the connection's
 * private columns for this caller.
 */
export function useConnection(
  ctx: CallContext,
  id: string,
  database?: string,
): { connection: SavedConnection; db: Database; key: string; privacy: PrivateColumns } {
  if (database !== undefined) refuseControlCharacters('database', database);
  const connection = ctx.catalog.get(id);
  if (!connection) throw new ToolError('not_found', `no connection with id "${id}"; call list_connections`);
  if (!canUseConnection(ctx.principal, connection)) {
    throw forbidden(`Forbidden: connection "${id}" is not available to this client`);
  }
  const { target, key, db } = ctx.catalog.onDatabase(connection, database);
  // SQLite connections share one pool of query processes, so a token's share is of that pool, not of
  // each file: long statements on two files must not take every process from the other tokens.
  const shareKey = engineModule(connection.engine).sharedPool ? SQLITE_POOL_SHARE : key;
  const shared = ctx.catalog.shares.forToken(db, shareKey, ctx.principal.id);
  return { connection: target, db: shared, key, privacy: privateColumns(ctx.principal, target, shared, ctx.catalog.maskingKey) };
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
