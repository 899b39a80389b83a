import type { Engine } from '../core/shared/engineNames.js';
import { SQL_DIALECTS } from './dialects.js';
import type { ExactDialect, TypedColumn } from './keptRowsSql.js';

const isBlob = (column: TypedColumn) => /^(BLOB|BYTEA|BINARY|VARBINARY)$/i.test(column.type.trim());

/**
 * How each engine reads and binds values in exact form (keptRowsSql.ts). SQLite: as they are, its driver
 * keeping integers, reals, text and blobs apart. DuckDB: a cast to VARCHAR and back to the column's type,
 * a BLOB through base64.
 */
export const EXACT_DIALECTS: Partial<Record<Engine, ExactDialect>> = {
  sqlite: { ...SQL_DIALECTS.sqlite, read: (c) => SQL_DIALECTS.sqlite.quoteIdent(c.name), bound: () => '?' },
  duckdb: {
    ...SQL_DIALECTS.duckdb,
    read: (c) => (isBlob(c) ? `to_base64(${SQL_DIALECTS.duckdb.quoteIdent(c.name)})` : `CAST(${SQL_DIALECTS.duckdb.quoteIdent(c.name)} AS VARCHAR)`),
    bound: (n, c) => (isBlob(c) ? `from_base64($${n})` : `CAST($${n} AS ${c.type})`),
  },
};

/** Whether a column of this declared type is read and bound as bytes (base64, ExactValue `{ b }`). */
export const readAsBytes = isBlob;
