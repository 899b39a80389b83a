export type Filter = { column: string; op: FilterOp; value?: unknown };
export const filterOps = [
  '=',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'like',
  'not_like',
  'in',
  'is_null',
  'is_not_null',
] as const;
export type FilterOp = (typeof filterOps)[number];
export type Sort = { column: string; direction: 'asc' | 'desc' };

export type BrowseRequest = {
  schema: string;
  table: string;
  columns?: string[];
  filters: Filter[];
  orderBy: Sort[];
  limit: number;
  offset: number;
};

export type SqlDialect = {
  quoteIdent(name: string): string;
  /** The placeholder for the n-th bound value (1-based): `?` or `$n`. */
  placeholder(n: number): string;
  /** CREATE INDEX names the schema on the index (`CREATE INDEX s.i ON t`, SQLite) rather than on the table. */
  schemaOnIndex?: true;
};

function condition(filter: Filter, dialect: SqlDialect, values: unknown[]): string {
  const column = dialect.quoteIdent(filter.column);
  const bind = (value: unknown) => {
    values.push(value);
    return dialect.placeholder(values.length);
  };
  switch (filter.op) {
    case 'is_null':
      return `${column} IS NULL`;
    case 'is_not_null':
      return `${column} IS NOT NULL`;
    case 'like':
      return `${column} LIKE ${bind(filter.value)}`;
    case 'not_like':
      return `${column} NOT LIKE ${bind(filter.value)}`;
    case 'in':
      return `${column} IN (${(filter.value as unknown[]).map(bind).join(', ')})`;
    case '!=':
      return `${column} <> ${bind(filter.value)}`;
    default:
      return `${column} ${filter.op} ${bind(filter.value)}`;
  }
}

/** A parameterised SELECT for `browse_table`: identifiers quoted by the dialect, every value bound. */
export function browseSql(request: BrowseRequest, dialect: SqlDialect): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const columns = request.columns?.length ? request.columns.map(dialect.quoteIdent).join(', ') : '*';
  let sql = `SELECT ${columns} FROM ${dialect.quoteIdent(request.schema)}.${dialect.quoteIdent(request.table)}`;
  if (request.filters.length > 0) {
    sql += ` WHERE ${request.filters.map((f) => condition(f, dialect, params)).join(' AND ')}`;
  }
  if (request.orderBy.length > 0) {
    sql += ` ORDER BY ${request.orderBy.map((s) => `${dialect.quoteIdent(s.column)} ${s.direction.toUpperCase()}`).join(', ')}`;
  }
  params.push(request.limit, request.offset);
  sql += ` LIMIT ${dialect.placeholder(params.length - 1)} OFFSET ${dialect.placeholder(params.length)}`;
  return { sql, params };
}
