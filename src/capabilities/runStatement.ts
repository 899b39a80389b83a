import type { SavedConnection } from '../db/connections/savedConnections.js';
import { requireScopes, requireWritable } from '../auth/access.js';
import type { StatementKind } from '../sql/classify.js';
import type { Database, ResultSet, Rows } from '../db/database.js';
import { DriverFailure } from '../db/driverFailure.js';
import type { ConsentDetails } from './consent.js';
import { fromDriverError } from './dbErrors.js';
import { runWrite } from './keptWrite.js';
import { writePreview } from './writePreview.js';
import type { PrivateColumns } from './privateColumns.js';
import { answerOf, readHeld, type ReadAnswer } from './readOn.js';
import type { CursorScope } from '../runtime/heldReads.js';
import type { CallContext } from './types.js';
import { RESULTS } from '../core/contract.js';

export type Statement = {
  tool: string;
  sql: string;
  kind: StatementKind;
  /** Why it is of that kind, in the classifier's words. */
  reason: string;
  params: unknown[];
  maxRows: number;
  maxBytes?: number;
  timeoutMs: number;
  /** What the user's consent shows besides the statement (`insert_rows`: its rows). */
  consent?: ConsentDetails;
  /** A read cut for its size stays open behind a `next_cursor` for this token, connection and tool (readOn.ts). */
  heldFor?: CursorScope;
  /** What a call reading on from its cursor must repeat, when not the SQL (a custom tool's arguments). */
  heldAs?: string;
  /** The answer's token budget (`max_tokens`): a held read's cut is decided where it is held. */
  maxTokens?: number;
};

/**
 * A write needs `tools:write`, a connection that allows writes, a statement the engine can parse and
 * prepare (nobody is asked to approve a typo), and the user's consent to this statement.
 */
async function authorizeWrite(ctx: CallContext, connection: SavedConnection, db: Database, privacy: PrivateColumns, statement: Statement): Promise<void> {
  requireScopes(ctx.principal, ['tools:read', 'tools:write']);
  requireWritable(connection);
  await db.check(statement.sql, ctx.signal).catch((error: unknown) => {
    throw fromDriverError(privacy.failure(error, statement.sql));
  });
  await ctx.consent.ask({
    connection,
    tool: statement.tool,
    statement: statement.sql,
    statementKind: statement.kind,
    statementReason: statement.reason,
    params: statement.params,
    preview: async () => {
      const { effect, undo } = await writePreview(db, statement, ctx.signal, ctx.undo.settings);
      return { effect: privacy.effect(effect), undo };
    },
    ...statement.consent,
  });
}

/**
 * Runs a classified statement: reads at once, writes once authorised. A "read" the engine calls a
 * write is authorised as a write before it runs. A read cut for its size carries a `next_cursor` when
 * the statement asks (`heldFor`) and its engine holds reads; a write never does. Progress 0.3 when it starts, 1 when it is done; the
 * statement goes into the connection's history. Before anything, `privacy` refuses a statement that
 * would let a private column's value out; it masks the result and redacts a failure.
 */
export async function runStatement(ctx: CallContext, connection: SavedConnection, db: Database, privacy: PrivateColumns, statement: Statement) {
  const mask = await privacy.statement(statement.sql).catch((error: unknown) => {
    throw fromDriverError(error);
  });
  if (statement.kind !== 'read') await authorizeWrite(ctx, connection, db, privacy, statement);
  ctx.progress(0.3, 1, `Running on ${connection.name}`);
  const started = performance.now();
  const options = {
    params: statement.params,
    maxRows: statement.maxRows,
    ...(statement.maxBytes ? { maxBytes: statement.maxBytes } : {}),
    timeoutMs: statement.timeoutMs,
    signal: ctx.signal,
    rowsAs: 'json' as const,
  };
  const record = (outcome: 'success' | 'error', rowCount: number, kind: StatementKind) =>
    ctx.history.record(connection.id, {
      sql: statement.sql,
      statement_kind: kind,
      executed_at: new Date().toISOString(),
      duration_ms: Math.round(performance.now() - started),
      row_count: rowCount,
      outcome,
    });
  let held: ReadAnswer | undefined;
  const read = async () => {
    if (!statement.heldFor) return db.read(statement.sql, options);
    held = await readHeld(ctx, db, statement.heldFor, statement.heldAs ?? statement.sql, statement.sql, options, { budget: statement.maxTokens ?? RESULTS.defaultTokens, mask });
    return held.result;
  };
  const run = (kind: StatementKind) => (kind === 'read' ? read() : runWrite(ctx, connection, db, statement, options));
  const failed = (error: unknown, kind: StatementKind) => {
    record('error', 0, kind);
    return fromDriverError(privacy.failure(error, statement.sql));
  };
  let kind = statement.kind;
  let result: ResultSet<Rows>;
  try {
    result = await run(kind);
  } catch (error) {
    if (!(kind === 'read' && error instanceof DriverFailure && error.kind === 'not_read_only')) throw failed(error, kind);
    kind = 'write';
    await authorizeWrite(ctx, connection, db, privacy, { ...statement, kind, reason: 'the database refused to run it as a read' });
    result = await run(kind).catch((writeError: unknown) => {
      throw failed(writeError, 'write');
    });
  }
  record('success', result.rows.length, kind);
  if (kind === 'ddl' || kind === 'destructive') ctx.catalog.changes.emit({ type: 'schema', connectionId: connection.id });
  ctx.progress(1, 1, kind === 'read' ? `${result.rows.length} row(s)` : `${result.rowsAffected} row(s) affected`);
  return answerOf({ ...(kind === 'read' ? held : undefined), result: { ...result, ...mask(result.columns, result.rows) } }, kind, performance.now() - started);
}
