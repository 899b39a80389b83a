import type { DuckDBConnection } from '@duckdb/node-api';
import { SQL_DIALECTS } from '../../../sql/dialects.js';
import type { KeptTable } from '../../keptWrites.js';

/** Runs a statement's work on the session's connection, failing once the statement was stopped (duckdbSessions.ts). */
type Step = <T>(work: () => Promise<T>) => Promise<T>;

const quote = SQL_DIALECTS.duckdb.quoteIdent;

/**
 * A table's generated columns. DuckDB's catalogue does not mark them (duckdb_columns() shows their
 * expression as `column_default`, as it shows a default), so each column with an expression is asked of
 * the binder: an UPDATE that sets it to itself, prepared and never run, is refused for a generated one.
 */
export async function duckdbGeneratedColumns(connection: DuckDBConnection, table: Pick<KeptTable, 'schema' | 'name'>, step: Step): Promise<Set<string>> {
  const sql = `SELECT column_name FROM duckdb_columns()
    WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2 AND column_default IS NOT NULL`;
  const found = await step(() => connection.runAndReadAll(sql, [table.schema, table.name]));
  const generated = new Set<string>();
  for (const [name] of found.getRows()) {
    const column = quote(String(name));
    const probe = `UPDATE ${quote(table.schema)}.${quote(table.name)} SET ${column} = ${column} WHERE false`;
    try {
      (await step(() => connection.prepare(probe))).destroySync();
    } catch (error) {
      if (!/generated column/i.test((error as Error).message)) throw error;
      generated.add(String(name));
    }
  }
  return generated;
}
