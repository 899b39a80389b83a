import { EXPORTS, RESULTS } from '../../core/contract.js';
import { ToolError } from '../../core/errors.js';
import { requestCollection } from '../../core/garbageCollection.js';
import { classifyStatement } from '../../sql/classify.js';
import { type PagedRead, type PageReader, valuesOf } from '../../db/database.js';
import { DriverFailure } from '../../db/driverFailure.js';
import { onConnection, useConnection } from '../connectionArgs.js';
import { fromDriverError } from '../dbErrors.js';
import { exportTarget, writeExport } from '../exportFile.js';
import { EXPORT_FORMATS } from '../exportFormats.js';
import { openWriter } from '../exportWriters.js';
import { boundValues, checkSqlSize, paramsProperty, sqlProperty, timeoutSecondsProperty } from '../statementArgs.js';
import type { FromSchema } from '../schema.js';
import { type CallContext, defineTool } from '../types.js';
import { boolean, integer, oneOf, record, text } from '../outputSchema.js';

const inputSchema = onConnection({
  sql: sqlProperty,
  params: paramsProperty,
  format: { type: 'string', enum: EXPORT_FORMATS },
  path: { type: 'string', description: 'Absolute path of the file to create; its directory must exist.', minLength: 1, maxLength: 4_096 },
  overwrite: { type: 'boolean', description: 'Replace the file if it exists.', default: false },
  max_rows: { type: 'integer', minimum: 1, maximum: EXPORTS.maxRows, default: EXPORTS.defaultRows },
  timeout_seconds: timeoutSecondsProperty,
}, ['sql', 'format', 'path']);

type Args = FromSchema<typeof inputSchema>;

/**
 * Reads the statement's rows within the export's limits, handing each page to `onPage`; a statement the
 * engine refuses as a read is refused here too. A failure of `onPage` (writing, a cancellation) ends the
 * read as itself.
 */
async function readPages(ctx: CallContext, args: Args, { db, privacy }: Pick<ReturnType<typeof useConnection>, 'db' | 'privacy'>, params: unknown[], onPage: PageReader) {
  let failed: { error: unknown } | undefined;
  const handOn: PageReader = (rows, columns) =>
    onPage(rows, columns).catch((error: unknown) => {
      failed = { error };
      throw error;
    });
  try {
    return await db.readPages(
      args.sql,
      {
        params,
        maxRows: args.max_rows ?? EXPORTS.defaultRows,
        maxBytes: EXPORTS.maxBytes,
        timeoutMs: (args.timeout_seconds ?? RESULTS.defaultTimeoutSeconds) * 1000,
        signal: ctx.signal,
      },
      handOn,
    );
  } catch (error) {
    if (failed) throw failed.error;
    if (error instanceof DriverFailure && error.kind === 'not_read_only') {
      throw new ToolError('invalid_argument', 'the database refused to run the statement as a read; export_data only reads');
    }
    throw fromDriverError(privacy.failure(error, args.sql));
  }
}

/** The statement and the path checked before anyone is asked: a read, that the engine accepts, to a path Sluice may write. */
async function checkedExport(args: Args, ctx: CallContext) {
  ctx.progress(0, 1, 'Checking the statement and the path');
  checkSqlSize(args.sql);
  const target = exportTarget(args.path, args.overwrite === true);
  const { connection, db, privacy } = useConnection(ctx, args.connection_id, args.database);
  const params = boundValues(args.params ?? [], db.engine);
  const { kind, reason } = classifyStatement(args.sql, db.engine);
  if (kind !== 'read') throw new ToolError('invalid_argument', `export_data runs only a statement that reads; this one is ${kind} (${reason})`);
  const mask = await privacy.statement(args.sql).catch((error: unknown) => {
    throw fromDriverError(error);
  });
  await db.check(args.sql, ctx.signal).catch((error: unknown) => {
    throw fromDriverError(privacy.failure(error, args.sql));
  });
  return { target, connection, db, privacy, mask, params, kind, reason };
}

export const exportData = defineTool({
  name: 'export_data',
  title: 'Export query results to a file',
  description: 'Writes the rows of one read statement to a new CSV, JSON Lines or Parquet file at an absolute path, once the user approves.',
  inputSchema,
  outputSchema: record({
    path: text,
    format: oneOf(EXPORT_FORMATS),
    rows: integer,
    bytes: integer,
    is_truncated: { ...boolean, description: 'True when rows were left out: past max_rows, or past the export’s size limit.' },
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  scopes: ['tools:write'],
  async run(args, ctx) {
    const { target, connection, db, privacy, mask, params, kind, reason } = await checkedExport(args, ctx);
    await ctx.consent.ask({
      connection,
      tool: 'export_data',
      statement: args.sql,
      statementKind: kind,
      statementReason: reason,
      params,
      destination: { path: target.path, format: args.format, replaces: target.exists },
    });
    ctx.progress(0.1, 1, `Reading from ${connection.name}`);
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
    const maxRows = args.max_rows ?? EXPORTS.defaultRows;
    let written = 0;
    let pages = 0;
    let read: PagedRead | undefined;
    // Each page is written before the next is read: the server holds a page, never the result.
    const bytes = await writeExport(target, async (temp) => {
      const writer = await openWriter(args.format, temp);
      try {
        read = await readPages(ctx, args, { db, privacy }, params, async (rows, columns) => {
          ctx.signal.throwIfAborted();
          const masked = mask(columns, rows);
          await writer.page(valuesOf(masked.rows), masked.columns);
          if (++pages % EXPORTS.pagesPerCollection === 0) requestCollection();
          written += rows.length;
          ctx.progress(0.1 + (0.85 * written) / maxRows, 1, `${written} row(s) written`);
        }).catch((error: unknown) => {
          record('error', 0);
          throw error;
        });
        record('success', read.rows);
        if (read.cellsCut) {
          throw new ToolError('unsupported', `${read.cellsCut} value(s) are longer than ${RESULTS.cellBytes / 1024} KB, which a read cuts; nothing was written`);
        }
        await writer.finish(mask(read.columns, []).columns);
        ctx.signal.throwIfAborted();
      } finally {
        await writer.close();
      }
    });
    const rows = read?.rows ?? 0;
    ctx.progress(1, 1, `${rows} row(s) written`);
    return { path: target.path, format: args.format, rows, bytes, is_truncated: read?.truncated ?? false };
  },
});
