import { requireScopes } from '../../auth/access.js';
import { classifyStatement } from '../../sql/classify.js';
import { ToolError } from '../../core/errors.js';
import { onConnection, useConnection } from '../connectionArgs.js';
import { maxBytesProperty, resultSetSchema } from '../resultSet.js';
import { cursorProperty, readOn, refuseBesideCursor, requiredUnlessCursor } from '../readOn.js';
import { runStatement } from '../runStatement.js';
import { maxTokensProperty, tokenBudgetOf } from '../tokenBudget.js';
import { boundValues, checkSqlSize, paramsProperty, sqlProperty, timeoutSecondsProperty } from '../statementArgs.js';
import { defineTool } from '../types.js';
import { RESULTS } from '../../core/contract.js';

export const executeQuery = defineTool({
  name: 'execute_query',
  title: 'Execute a SQL statement',
  description:
    'Runs one SQL statement and returns its rows; a write needs the user’s consent. Bind values with params: ? on SQLite and MySQL, $1, $2… on PostgreSQL. Beside cursor, sql may be left out.',
  inputSchema: onConnection({
    sql: sqlProperty,
    cursor: cursorProperty,
    params: paramsProperty,
    max_rows: { type: 'integer', minimum: 1, maximum: RESULTS.maxRows, default: RESULTS.defaultRows },
    max_bytes: maxBytesProperty,
    max_tokens: maxTokensProperty,
    timeout_seconds: timeoutSecondsProperty,
  }),
  outputSchema: resultSetSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  scopes: [],
  async run(args, ctx) {
    if (args.sql === undefined && args.cursor === undefined) throw requiredUnlessCursor('sql');
    ctx.progress(0, 1, 'Checking the statement');
    const { connection, db, key, privacy } = useConnection(ctx, args.connection_id, args.database);
    const heldFor = { principalId: ctx.principal.id, connectionKey: key, tool: 'execute_query' };
    const maxRows = args.max_rows ?? RESULTS.defaultRows;
    const maxBytes = args.max_bytes ?? RESULTS.defaultBytes;
    const timeoutMs = (args.timeout_seconds ?? RESULTS.defaultTimeoutSeconds) * 1000;
    if (args.cursor !== undefined) {
      refuseBesideCursor('params', args.params !== undefined);
      return readOn(ctx, heldFor, args.cursor, args.sql, { maxRows, maxBytes, timeoutMs, signal: ctx.signal }, tokenBudgetOf(args));
    }
    if (args.sql === undefined) throw requiredUnlessCursor('sql');
    checkSqlSize(args.sql);
    const { kind, reason } = classifyStatement(args.sql, db.engine);
    if (kind === 'destructive') {
      requireScopes(ctx.principal, ['tools:read', 'tools:write']);
      throw new ToolError('unsupported', 'DROP, TRUNCATE, and a DELETE or UPDATE of every row (no WHERE, or a constant one, wherever it sits) run only through confirm_destructive_operation');
    }
    return runStatement(ctx, connection, db, privacy, {
      tool: 'execute_query',
      sql: args.sql,
      kind,
      reason,
      params: boundValues(args.params ?? [], db.engine),
      maxRows,
      maxBytes,
      timeoutMs,
      heldFor,
      maxTokens: tokenBudgetOf(args),
    });
  },
});
