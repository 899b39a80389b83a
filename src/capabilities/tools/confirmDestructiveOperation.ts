import { classifyStatement } from '../../sql/classify.js';
import { ToolError } from '../../core/errors.js';
import { onConnection, useConnection } from '../connectionArgs.js';
import { resultSetSchema } from '../resultSet.js';
import { runStatement } from '../runStatement.js';
import { sqlProperty } from '../statementArgs.js';
import { maxTokensProperty } from '../tokenBudget.js';
import { defineTool } from '../types.js';
import { RESULTS } from '../../core/contract.js';

export const confirmDestructiveOperation = defineTool({
  name: 'confirm_destructive_operation',
  title: 'Run a destructive statement',
  description:
    'The only way to run DROP, TRUNCATE or DELETE without WHERE. Needs the admin scope and the user’s explicit confirmation of the exact statement.',
  inputSchema: onConnection({
    sql: { ...sqlProperty, description: 'Exactly one destructive statement.' },
    max_tokens: maxTokensProperty,
  }, ['sql']),
  outputSchema: resultSetSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  scopes: ['tools:write', 'admin'],
  async run(args, ctx) {
    const { connection, db, privacy } = useConnection(ctx, args.connection_id, args.database);
    const { kind, reason } = classifyStatement(args.sql, db.engine);
    if (kind !== 'destructive') {
      throw new ToolError('invalid_argument', `this is a ${kind} statement, not a destructive one: use execute_query`);
    }
    return runStatement(ctx, connection, db, privacy, {
      tool: 'confirm_destructive_operation',
      sql: args.sql,
      kind,
      reason,
      params: [],
      maxRows: RESULTS.defaultRows,
      timeoutMs: RESULTS.defaultTimeoutSeconds * 1_000,
    });
  },
});
