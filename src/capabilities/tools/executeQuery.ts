import type { SavedConnection } from '../../app/config.js';
import { requireScopes, requireWritable } from '../../auth/access.js';
import { classifyStatement } from '../../db/classify.js';
import { SqliteFailure } from '../../db/sqlite/processPool.js';
import { ToolError } from '../../protocol/errors.js';
import { connectionIdProperty, useConnection } from '../connectionArgs.js';
import { fromDriverError } from '../dbErrors.js';
import { resultSetSchema, toResultSet } from '../resultSet.js';
import type { CallContext, Tool } from '../types.js';

type Args = {
  connection_id: string;
  sql: string;
  params?: unknown[];
  max_rows?: number;
  timeout_seconds?: number;
};

export const MAX_SQL_BYTES = 100 * 1024;

/** Writes need `tools:write` and the user's consent; until consent is built they are `unsupported`. */
function refuseWrite(ctx: CallContext, connection: SavedConnection, kind: string): never {
  requireScopes(ctx.principal, ['tools:read', 'tools:write']);
  requireWritable(connection);
  if (kind === 'destructive') {
    throw new ToolError(
      'unsupported',
      'DROP, TRUNCATE and DELETE without WHERE run only through confirm_destructive_operation',
    );
  }
  throw new ToolError(
    'unsupported',
    'statements that write need the user’s consent, which this version of Sluice cannot ask for yet',
  );
}

export const executeQuery: Tool<Args> = {
  name: 'execute_query',
  title: 'Execute a SQL statement',
  description:
    'Runs one SQL statement and returns its rows. Reads run at once; a statement that writes needs the tools:write scope and the user’s consent. Bind values with params (? placeholders) instead of pasting them into the SQL.',
  inputSchema: {
    type: 'object',
    properties: {
      connection_id: connectionIdProperty,
      sql: {
        type: 'string',
        description: 'Exactly one SQL statement (at most 100 KB).',
        minLength: 1,
        maxLength: MAX_SQL_BYTES,
      },
      params: {
        type: 'array',
        description: 'Values bound to the statement’s placeholders, in order.',
        items: {},
        maxItems: 1000,
      },
      max_rows: { type: 'integer', minimum: 1, maximum: 10_000, default: 500 },
      timeout_seconds: { type: 'integer', minimum: 1, maximum: 300, default: 30 },
    },
    required: ['connection_id', 'sql'],
    additionalProperties: false,
  },
  outputSchema: resultSetSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  scopes: [],
  async run(args, ctx) {
    ctx.progress(0, 1, 'Checking the statement');
    if (Buffer.byteLength(args.sql) > MAX_SQL_BYTES)
      throw new ToolError('invalid_argument', 'the SQL is over 100 KB');
    const params = args.params ?? [];
    if (params.some((p) => p !== null && typeof p === 'object')) {
      throw new ToolError('invalid_argument', 'params must be strings, numbers, booleans or null');
    }
    const { connection, db } = useConnection(ctx, args.connection_id);
    const { kind } = classifyStatement(args.sql);
    if (kind !== 'read') refuseWrite(ctx, connection, kind);

    ctx.progress(0.3, 1, `Running on ${connection.name}`);
    const started = performance.now();
    const record = (outcome: 'success' | 'error', rowCount: number) =>
      ctx.history.record(connection.id, {
        sql: args.sql,
        statement_kind: kind,
        executed_at: new Date().toISOString(),
        duration_ms: Math.round(performance.now() - started),
        row_count: rowCount,
        outcome,
      });
    try {
      const result = await db.read(args.sql, {
        params: params.map((p) => (typeof p === 'boolean' ? Number(p) : p)),
        maxRows: args.max_rows ?? 500,
        timeoutMs: (args.timeout_seconds ?? 30) * 1000,
        signal: ctx.signal,
      });
      record('success', result.rows.length);
      ctx.progress(1, 1, `${result.rows.length} row(s)`);
      return toResultSet(result, kind, performance.now() - started);
    } catch (error) {
      record('error', 0);
      if (error instanceof SqliteFailure && error.code === 'not_read_only') refuseWrite(ctx, connection, 'write');
      throw fromDriverError(error);
    }
  },
};
