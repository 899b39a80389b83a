import { requireScopes } from '../../auth/access.js';
import { classifyStatement } from '../../db/classify.js';
import { ToolError } from '../../core/errors.js';
import { connectionIdProperty, useConnection } from '../connectionArgs.js';
import { maxBytesProperty, resultSetSchema } from '../resultSet.js';
import { runStatement } from '../runStatement.js';
import type { Tool } from '../types.js';
import { RESULTS } from '../../core/contract.js';

type Args = {
  connection_id: string;
  sql: string;
  params?: unknown[];
  max_rows?: number;
  max_bytes?: number;
  timeout_seconds?: number;
};

export const executeQuery: Tool<Args> = {
  name: 'execute_query',
  title: 'Execute a SQL statement',
  description:
    'Runs one SQL statement and returns its rows. Reads run at once; a statement that writes needs the tools:write scope and the user’s consent. Bind values with params instead of pasting them into the SQL: ? placeholders on SQLite and MySQL, $1, $2… on PostgreSQL.',
  inputSchema: {
    type: 'object',
    properties: {
      connection_id: connectionIdProperty,
      sql: {
        type: 'string',
        description: `Exactly one SQL statement (at most ${RESULTS.maxSqlBytes / 1024} KB).`,
        minLength: 1,
        maxLength: RESULTS.maxSqlBytes,
      },
      params: {
        type: 'array',
        description: 'Values bound to the statement’s placeholders, in order.',
        items: {},
        maxItems: RESULTS.maxParams,
      },
      max_rows: { type: 'integer', minimum: 1, maximum: RESULTS.maxRows, default: RESULTS.defaultRows },
      max_bytes: maxBytesProperty,
      timeout_seconds: { type: 'integer', minimum: 1, maximum: RESULTS.maxTimeoutSeconds, default: RESULTS.defaultTimeoutSeconds },
    },
    required: ['connection_id', 'sql'],
    additionalProperties: false,
  },
  outputSchema: resultSetSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  scopes: [],
  async run(args, ctx) {
    ctx.progress(0, 1, 'Checking the statement');
    if (Buffer.byteLength(args.sql) > RESULTS.maxSqlBytes)
      throw new ToolError('invalid_argument', `the SQL is over ${RESULTS.maxSqlBytes / 1024} KB`);
    const params = args.params ?? [];
    if (params.some((p) => p !== null && typeof p === 'object')) {
      throw new ToolError('invalid_argument', 'params must be strings, numbers, booleans or null');
    }
    const { connection, db } = useConnection(ctx, args.connection_id);
    const { kind, reason } = classifyStatement(args.sql, db.engine);
    if (kind === 'destructive') {
      requireScopes(ctx.principal, ['tools:read', 'tools:write']);
      throw new ToolError('unsupported', 'DROP, TRUNCATE, and a DELETE or UPDATE of every row (no WHERE, or a constant one, wherever it sits) run only through confirm_destructive_operation');
    }
    return runStatement(ctx, connection, db, {
      tool: 'execute_query',
      sql: args.sql,
      kind,
      reason,
      params: params.map((p) => (typeof p === 'boolean' && db.engine === 'sqlite' ? Number(p) : p)),
      maxRows: args.max_rows ?? RESULTS.defaultRows,
      maxBytes: args.max_bytes ?? RESULTS.defaultBytes,
      timeoutMs: (args.timeout_seconds ?? RESULTS.defaultTimeoutSeconds) * 1000,
    });
  },
};
