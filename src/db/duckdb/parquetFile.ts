import { type DuckDBAppender, DuckDBInstance } from '@duckdb/node-api';
import { DATABASES } from '../../core/contract.js';
import { SQL_DIALECTS } from '../../sql/dialects.js';

type ParquetType = 'BOOLEAN' | 'BIGINT' | 'DOUBLE' | 'VARCHAR';

/**
 * A column's Parquet type from its values as the driver gave them: BOOLEAN, BIGINT (integers), DOUBLE
 * (any other number) or VARCHAR (text, and any column whose values disagree: its values as text).
 */
function columnType(rows: readonly unknown[][], column: number): ParquetType {
  let type: ParquetType | undefined;
  for (const row of rows) {
    const value = row[column];
    if (value === null || value === undefined) continue;
    const own: ParquetType =
      typeof value === 'boolean' ? 'BOOLEAN' : typeof value === 'number' ? (Number.isSafeInteger(value) ? 'BIGINT' : 'DOUBLE') : 'VARCHAR';
    if (type === undefined || type === own) type = own;
    else if ((type === 'BIGINT' && own === 'DOUBLE') || (type === 'DOUBLE' && own === 'BIGINT')) type = 'DOUBLE';
    else return 'VARCHAR';
  }
  return type ?? 'VARCHAR';
}

function append(appender: DuckDBAppender, type: ParquetType, value: unknown): void {
  if (value === null || value === undefined) appender.appendNull();
  else if (type === 'BOOLEAN') appender.appendBoolean(value as boolean);
  else if (type === 'BIGINT') appender.appendBigInt(BigInt(value as number));
  else if (type === 'DOUBLE') appender.appendDouble(value as number);
  else appender.appendVarchar(typeof value === 'object' ? JSON.stringify(value) : String(value));
}

const { quoteIdent } = SQL_DIALECTS.duckdb;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * Writes rows to a new Parquet file at `path` through an in-memory DuckDB (its memory and threads capped
 * as every DuckDB in Sluice is): a table typed from the values, filled by DuckDB's appender in pages of
 * `pageRows` (`onPage` after each), then `COPY … (FORMAT parquet)`. `names` must be unique.
 */
export async function writeParquet(
  path: string,
  names: readonly string[],
  rows: readonly unknown[][],
  pageRows: number,
  onPage: (written: number) => void,
): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:', {
    memory_limit: `${DATABASES.duckdbMemoryLimitMb}MiB`,
    threads: String(DATABASES.duckdbThreads),
  });
  const connection = await instance.connect();
  try {
    const types = names.map((_, i) => columnType(rows, i));
    await connection.run(`CREATE TABLE export (${names.map((name, i) => `${quoteIdent(name)} ${types[i]}`).join(', ')})`);
    const appender = await connection.createAppender('export');
    try {
      for (let from = 0; from < rows.length; from += pageRows) {
        for (const row of rows.slice(from, from + pageRows)) {
          types.forEach((type, i) => append(appender, type, row[i]));
          appender.endRow();
        }
        appender.flushSync();
        onPage(Math.min(from + pageRows, rows.length));
      }
    } finally {
      appender.closeSync();
    }
    await connection.run(`COPY export TO ${literal(path)} (FORMAT parquet)`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
