import type { FileHandle } from 'node:fs/promises';
import { EXPORTS, RESULTS } from '../../core/contract.js';
import { ToolError } from '../../core/errors.js';
import { classifyStatement } from '../../db/classify.js';
import { type Column, valuesOf } from '../../db/database.js';
import { DriverFailure } from '../../db/driverFailure.js';
import { onConnection, useConnection } from '../connectionArgs.js';
import { fromDriverError } from '../dbErrors.js';
import { exportTarget, withTempFile, writeExport } from '../exportFile.js';
import { csvRecord, EXPORT_FORMATS, jsonRecord, uniqueNames } from '../exportFormats.js';
import { boundValues, checkSqlSize, paramsProperty, sqlProperty, timeoutSecondsProperty } from '../statementArgs.js';
import type { FromSchema } from '../schema.js';
import { type CallContext, defineTool } from '../types.js';

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

/** Rows written between two progress reports. */
const PAGE_ROWS = 10_000;

/** Writes CSV or JSON Lines text page by page: one write per page of rows, never the whole file as one string. */
async function writeText(file: FileHandle, columns: Column[], rows: unknown[][], format: 'csv' | 'jsonl', onPage: (written: number) => void) {
  const names = uniqueNames(columns.map((c) => c.name));
  if (format === 'csv') await file.write(csvRecord(columns.map((c) => c.name)));
  for (let from = 0; from < rows.length; from += PAGE_ROWS) {
    const page = rows.slice(from, from + PAGE_ROWS);
    await file.write(page.map((row) => (format === 'csv' ? csvRecord(row) : jsonRecord(names, row))).join(''));
    onPage(from + page.length);
  }
}

/** Reads the statement's rows within the export's limits; a statement the engine refuses as a read is refused here too. */
async function readRows(ctx: CallContext, args: Args, db: ReturnType<typeof useConnection>['db'], params: unknown[]) {
  try {
    return await db.read(args.sql, {
      params,
      maxRows: args.max_rows ?? EXPORTS.defaultRows,
      maxBytes: EXPORTS.maxBytes,
      timeoutMs: (args.timeout_seconds ?? RESULTS.defaultTimeoutSeconds) * 1000,
      signal: ctx.signal,
      rowsAs: 'values',
    });
  } catch (error) {
    if (error instanceof DriverFailure && error.kind === 'not_read_only') {
      throw new ToolError('invalid_argument', 'the database refused to run the statement as a read; export_data only reads');
    }
    throw fromDriverError(error);
  }
}

export const exportData = defineTool({
  name: 'export_data',
  title: 'Export query results to a file',
  description: 'Writes the rows of one read statement to a new CSV, JSON Lines or Parquet file at an absolute path, once the user approves.',
  inputSchema,
  outputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string' },
      format: { type: 'string', enum: EXPORT_FORMATS },
      rows: { type: 'integer' },
      bytes: { type: 'integer' },
      is_truncated: { type: 'boolean', description: 'True when rows were left out: past max_rows, or past the export’s size limit.' },
    },
    required: ['path', 'format', 'rows', 'bytes', 'is_truncated'],
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  scopes: ['tools:write'],
  async run(args, ctx) {
    ctx.progress(0, 1, 'Checking the statement and the path');
    checkSqlSize(args.sql);
    const target = exportTarget(args.path, args.overwrite === true);
    const { connection, db } = useConnection(ctx, args.connection_id, args.database);
    const params = boundValues(args.params ?? [], db.engine);
    const { kind, reason } = classifyStatement(args.sql, db.engine);
    if (kind !== 'read') throw new ToolError('invalid_argument', `export_data runs only a statement that reads; this one is ${kind} (${reason})`);
    await db.check(args.sql, ctx.signal).catch((error: unknown) => {
      throw fromDriverError(error);
    });
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
    const result = await readRows(ctx, args, db, params).catch((error: unknown) => {
      record('error', 0);
      throw error;
    });
    record('success', result.rows.length);
    if (result.cellsCut) {
      throw new ToolError('unsupported', `${result.cellsCut} value(s) are longer than ${RESULTS.cellBytes / 1024} KB, which a read cuts; nothing was written`);
    }
    const rows = valuesOf(result.rows);
    const onPage = (written: number) => ctx.progress(0.5 + (0.5 * written) / Math.max(rows.length, 1), 1, `${written} of ${rows.length} row(s) written`);
    ctx.progress(0.5, 1, `Writing ${rows.length} row(s)`);
    const bytes = await writeExport(target, async (temp) => {
      if (args.format !== 'parquet') return withTempFile(temp, (file) => writeText(file, result.columns, rows, args.format as 'csv' | 'jsonl', onPage));
      // DuckDB (about 10 MB of library) is loaded only when someone writes Parquet: Sluice idles without it.
      const { writeParquet } = await import('../../db/duckdb/parquetFile.js');
      return writeParquet(temp, uniqueNames(result.columns.map((c) => c.name)), rows, PAGE_ROWS, onPage);
    });
    ctx.progress(1, 1, `${rows.length} row(s) written`);
    return { path: target.path, format: args.format, rows: rows.length, bytes, is_truncated: result.truncated };
  },
});
