import { type Filter, filterOps } from '../../sql/browseSql.js';
import { ToolError } from '../../core/errors.js';
import { describeOrFail, onConnection, schemaProperty, tableProperty, useConnection } from '../connectionArgs.js';
import { fromDriverError } from '../dbErrors.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import { maxBytesProperty, resultSetSchema, toResultSet } from '../resultSet.js';
import { defineTool } from '../types.js';
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
    'Reads rows of a table or view with structured filters, sorting and paging; no SQL needed. Values are bound as parameters.',
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
  }, ['table']),
  outputSchema: resultSetSchema,
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(args, ctx) {
    const { db, privacy } = useConnection(ctx, args.connection_id, args.database);
    const table = await describeOrFail(db, args.schema, args.table, ctx.signal);
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
    const orderBy = (args.order_by ?? []).map((s) => ({
      column: column(s.column),
      direction: s.direction ?? 'asc',
    }));
    const mask = privacy.table(filters.map((f) => f.column), orderBy.map((s) => s.column));
    const limit = args.limit ?? 50;
    const started = performance.now();
    const result = await db
      .browse(
        {
          schema: table.schema,
          table: table.name,
          ...(args.columns ? { columns: args.columns.map(column) } : {}),
          filters,
          orderBy,
          limit: limit + 1,
          offset: args.offset ?? 0,
        },
        { maxRows: limit, maxBytes: args.max_bytes ?? RESULTS.defaultBytes, timeoutMs: RESULTS.defaultTimeoutSeconds * 1_000, signal: ctx.signal, rowsAs: 'json' },
      )
      .catch((error: unknown) => {
        throw fromDriverError(privacy.failure(error));
      });
    return toResultSet({ ...result, ...mask(result.columns, result.rows) }, 'read', performance.now() - started);
  },
});
