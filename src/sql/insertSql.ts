import type { SqlDialect } from './browseSql.js';

export type InsertRequest = { schema: string; table: string; columns: string[]; rows: unknown[][] };

/** One multi-row INSERT: identifiers quoted by the dialect, every value bound, row by row. */
export function insertSql(request: InsertRequest, dialect: SqlDialect): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const tuples = request.rows.map((row) => {
    const placeholders = row.map((value) => {
      params.push(value);
      return dialect.placeholder(params.length);
    });
    return `(${placeholders.join(', ')})`;
  });
  const target = `${dialect.quoteIdent(request.schema)}.${dialect.quoteIdent(request.table)}`;
  return { sql: `INSERT INTO ${target} (${request.columns.map(dialect.quoteIdent).join(', ')}) VALUES ${tuples.join(', ')}`, params };
}
