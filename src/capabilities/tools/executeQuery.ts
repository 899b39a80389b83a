import { requireScopes } from '../../auth/access.js';
import { classifyStatement } from '../../db/classify.js';
import { ToolError } from '../../protocol/errors.js';
import { connectionIdProperty, useConnection } from '../connectionArgs.js';
import { RESULT_BYTES } from '../../db/resultBudget.js';
import { maxBytesProperty, resultSetSchema } from '../resultSet.js';
import { runStatement } from '../runStatement.js';
import type { Tool } from '../types.js';

type Args = {
  connection_id: string;
  sql: string;
  params?: unknown[];
  max_rows?: number;
  max_bytes?: number;
  timeout_seconds?: number;
};

export const MAX_SQL_BYTES = 100 * 1024;

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
      max_bytes: maxBytesProperty,
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
    const { kind } = classifyStatement(args.sql, db.engine);
    if (kind === 'destructive') {
      requireScopes(ctx.principal, ['tools:read', 'tools:write']);
      throw new ToolError('unsupported', 'DROP, TRUNCATE, and a DELETE or UPDATE of every row (no WHERE, or a constant one, wherever it sits) run only through confirm_destructive_operation');
    }
    return runStatement(ctx, connection, db, {
      tool: 'execute_query',
      sql: args.sql,
      kind,
      params: params.map((p) => (typeof p === 'boolean' && db.engine === 'sqlite' ? Number(p) : p)),
      maxRows: args.max_rows ?? 500,
      maxBytes: args.max_bytes ?? RESULT_BYTES.default,
      timeoutMs: (args.timeout_seconds ?? 30) * 1000,
    });
  },
};
