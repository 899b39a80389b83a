import type { Engine } from '../core/shared/engineNames.js';
import type { SqlDialect } from './browseSql.js';
import { SQL_DIALECTS } from './dialects.js';
import type { ExactDialect, TypedColumn } from './keptRowsSql.js';

const isBlob = (column: TypedColumn) => /^(BLOB|BYTEA|BINARY|VARBINARY)$/i.test(column.type.trim());

/** Columns read and values bound as they are: the driver gives and takes the exact form. */
const columnsAsTheyAre = (dialect: SqlDialect): ExactDialect => ({ ...dialect, read: (c) => dialect.quoteIdent(c.name), bound: (n) => dialect.placeholder(n) });

/**
 * How each engine reads and binds values in exact form (keptRowsSql.ts). SQLite: as they are, its driver
 * keeping integers, reals, text and blobs apart. DuckDB: a cast to VARCHAR and back to the column's type,
 * a BLOB through base64. PostgreSQL: the column itself, its driver reading the text output unparsed and
 * binding text, which the server reads as the type of the place it is bound to (a column compared,
 * set or inserted). MySQL and MariaDB: the column itself, its driver reading the binary protocol's
 * values as text (bytes in base64) and binding text or bytes, which the server converts to the column's type.
 * Both lock the rows before as they read them, since other sessions write beside Sluice's; PostgreSQL
 * inserts a row again with the key its identity column (GENERATED ALWAYS) gave it. DuckDB sets rows
 * back and inserts them a batch at a time, one statement a row being too slow there for an undo's time.
 */
export const EXACT_DIALECTS: Partial<Record<Engine, ExactDialect>> = {
  sqlite: columnsAsTheyAre(SQL_DIALECTS.sqlite),
  postgres: { ...columnsAsTheyAre(SQL_DIALECTS.postgres), lockRows: ' FOR UPDATE', overriding: ' OVERRIDING SYSTEM VALUE' },
  mysql: { ...columnsAsTheyAre(SQL_DIALECTS.mysql), lockRows: ' FOR UPDATE' },
  duckdb: {
    ...SQL_DIALECTS.duckdb,
    read: (c) => (isBlob(c) ? `to_base64(${SQL_DIALECTS.duckdb.quoteIdent(c.name)})` : `CAST(${SQL_DIALECTS.duckdb.quoteIdent(c.name)} AS VARCHAR)`),
    bound: (n, c) => (isBlob(c) ? `from_base64($${n})` : `CAST($${n} AS ${c.type})`),
    setsBackInBatches: true,
  },
};

/** Whether a column of this declared type is read and bound as bytes (base64, ExactValue `{ b }`). */
export const readAsBytes = isBlob;
