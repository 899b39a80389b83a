import type { Database, ReadOptions } from '../../db/database.js';
import { engineModule } from '../../db/engines/registry.js';
import type { CursorScope } from '../../runtime/heldReads.js';
import type { ResultMask } from '../privateColumns.js';
import { type BrowseRequest, browseSql, type Filter, filterOps } from '../../sql/browseSql.js';
import { ToolError } from '../../core/errors.js';
import { describeOrFail, onConnection, schemaProperty, tableProperty, useConnection } from '../connectionArgs.js';
import { fromDriverError } from '../dbErrors.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { maxBytesProperty, resultSetSchema } from '../resultSet.js';
import { answerOf, cursorProperty, type ReadAnswer, readHeld, readOn, requiredUnlessCursor } from '../readOn.js';
import { maxTokensProperty, tokenBudgetOf } from '../tokenBudget.js';
import { type CallContext, defineTool } from '../types.js';
import { RESULTS } from '../../core/contract.js';

const VALUELESS_OPS = new Set(['is_null', 'is_not_null']);

function checkFilter(filter: Filter): void {
  if (VALUELESS_OPS.has(filter.op)) return;
  if (filter.op === 'in') {
    if (!Array.isArray(filter.value) || filter.value.length === 0 || filter.value.length > 1000) {
      throw new ToolError(
        'invalid_argument',
        `filter on ${filter.column}: "in" needs an array of 1 to 1000 values`,
      );
    }
    return;
  }
  const { value } = filter;
  if (value === undefined || (value !== null && typeof value === 'object')) {
    throw new ToolError(
      'invalid_argument',
      `filter on ${filter.column}: "${filter.op}" needs a string, number or boolean value`,
    );
  }
}

export const browseTable = defineTool({
  name: 'browse_table',
  title: 'Browse a table',
  description:
    'Reads rows of a table or view with structured filters, sorting and paging; no SQL needed. Values are bound as parameters. Beside cursor, the rest may be left out.',
  inputSchema: onConnection({
    table: tableProperty,
    schema: schemaProperty,
    columns: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      maxItems: 500,
      description: 'Columns to return; all when absent.',
    },
    filters: {
      type: 'array',
      maxItems: 50,
      description: 'Conditions joined with AND.',
      items: {
        type: 'object',
        properties: {
          column: { type: 'string', minLength: 1 },
          op: { type: 'string', enum: filterOps },
          value: { description: 'Compared value; an array for "in"; absent for is_null / is_not_null.' },
        },
        required: ['column', 'op'],
        additionalProperties: false,
      },
    },
    order_by: {
      type: 'array',
      maxItems: 20,
      items: {
        type: 'object',
        properties: {
          column: { type: 'string', minLength: 1 },
          direction: { type: 'string', enum: ['asc', 'desc'] },
        },
        required: ['column'],
        additionalProperties: false,
      },
    },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 50 },
    offset: { type: 'integer', minimum: 0, maximum: 1_000_000_000, default: 0 },
    max_bytes: maxBytesProperty,
    max_tokens: maxTokensProperty,
    cursor: cursorProperty,
  }),
  outputSchema: resultSetSchema,
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    if (args.table === undefined && args.cursor === undefined) throw requiredUnlessCursor('table');
    const { db, key, privacy } = useConnection(ctx, args.connection_id, args.database);
    const heldFor = { principalId: ctx.principal.id, connectionKey: key, tool: 'browse_table' };
    const limit = args.limit ?? 50;
    const options = { maxRows: limit, maxBytes: args.max_bytes ?? RESULTS.defaultBytes, timeoutMs: RESULTS.defaultTimeoutSeconds * 1_000, signal: ctx.signal };
    // What a call reading on may repeat: the selection, as the client gave it.
    const selection = args.table === undefined ? undefined : JSON.stringify([args.schema, args.table, args.columns, args.filters, args.order_by, args.offset]);
    if (args.cursor !== undefined) {
      return readOn(ctx, heldFor, args.cursor, selection, options, tokenBudgetOf(args));
    }
    if (args.table === undefined || selection === undefined) throw requiredUnlessCursor('table');
    const request = await browseRequest(db, { ...args, table: args.table }, ctx.signal);
    const mask = privacy.table(request.filters.map((f) => f.column), request.orderBy.map((s) => s.column));
    const started = performance.now();
    const held = { heldFor, selection, budget: tokenBudgetOf(args), mask };
    const answer = await browsed(ctx, db, request, limit, { ...options, rowsAs: 'json' as const }, held).catch((error: unknown) => {
      throw fromDriverError(privacy.failure(error));
    });
    return answerOf({ ...answer, result: { ...answer.result, ...mask(answer.result.columns, answer.result.rows) } }, 'read', performance.now() - started);
  },
});

type BrowseArgs = {
  table: string;
  schema?: string;
  columns?: string[];
  filters?: Filter[];
  order_by?: { column: string; direction?: 'asc' | 'desc' }[];
  offset?: number;
};

/** The call's selection with every column named as the table names it (unknown ones refused). */
async function browseRequest(db: Database, args: BrowseArgs, signal: AbortSignal): Promise<Omit<BrowseRequest, 'limit'>> {
  const table = await describeOrFail(db, args.schema, args.table, signal);
  const known = new Map(table.columns.map((c) => [c.name.toLowerCase(), c.name]));
  const column = (name: string) => {
    const real = known.get(name.toLowerCase());
    if (!real) throw new ToolError('invalid_argument', `"${table.name}" has no column "${name}"`);
    return real;
  };
  const filters = (args.filters ?? []).map((f) => {
    checkFilter(f);
    return { ...f, column: column(f.column) };
  });
  const orderBy = (args.order_by ?? []).map((s) => ({ column: column(s.column), direction: s.direction ?? 'asc' }));
  return {
    schema: table.schema,
    table: table.name,
    ...(args.columns ? { columns: args.columns.map(column) } : {}),
    filters,
    orderBy,
    offset: args.offset ?? 0,
  };
}

/**
 * The rows of `request`, `limit` at most. Where the engine holds reads, the SELECT has no LIMIT of its
 * own: the cut at `limit` leaves the rest open behind a cursor. Elsewhere it asks for one row more than
 * `limit`, to know that more exist.
 */
function browsed(
  ctx: CallContext,
  db: Database,
  request: Omit<BrowseRequest, 'limit'>,
  limit: number,
  options: ReadOptions,
  // Absent on a connection with private columns: a held read's later pages would not pass the mask.
  held: { heldFor: CursorScope; selection: string; budget: number; mask: ResultMask } | undefined,
): Promise<ReadAnswer> {
  if (!db.holdRead || !held) return db.browse({ ...request, limit: limit + 1 }, options).then((result) => ({ result }));
  const { sql, params } = browseSql({ ...request, limit: Number.MAX_SAFE_INTEGER }, engineModule(db.engine).dialect);
  return readHeld(ctx, db, held.heldFor, held.selection, sql, { ...options, params }, held);
}
