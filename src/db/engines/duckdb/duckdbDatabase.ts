import { describedColumns, groupForeignKeys, groupIndexes } from '../../catalog/catalogRows.js';
import type { RowCount, TableDescription, TableKind, TableSummary } from '../../database.js';
import { ServerDatabase } from '../../serverDatabase.js';
import type { DuckdbTarget } from './duckdbInstances.js';
import type { AppClock } from '../../../core/clock.js';
import { SQL_DIALECTS } from '../../../sql/dialects.js';

const dialect = SQL_DIALECTS.duckdb;
const { quoteIdent } = dialect;
const HERE = 'database_name = current_database() AND NOT internal';
const RELATIONS = `SELECT schema_name, table_name AS name, 'table' AS type, sql FROM duckdb_tables() WHERE ${HERE}
  UNION ALL SELECT schema_name, view_name, 'view', sql FROM duckdb_views() WHERE ${HERE}`;

type Relation = { schema: string; name: string; type: TableKind; sql: string };

/**
 * A DuckDB database, a file or in memory, in this process: the catalog queries behind every tool
 * (DuckDB's `duckdb_*()` table functions), run as reads like the server engines'. The driver is loaded
 * on first use.
 */
export class DuckdbDatabase extends ServerDatabase {
  readonly engine = 'duckdb' as const;
  /** Any table, view or column created, changed or dropped changes the hash of their descriptions. */
  protected readonly schemaVersionSql = `SELECT count(*) || ':' || coalesce(sum(hash(schema_name, table_name, column_name, data_type, column_default, is_nullable)), 0)
    FROM duckdb_columns() WHERE ${HERE}`;

  constructor(target: DuckdbTarget, clock: AppClock) {
    super(async () => {
      const { DuckdbSessions } = await import('./duckdbSessions.js');
      return DuckdbSessions.open(target, clock);
    }, dialect);
  }

  defaultSchema(): string {
    return 'main';
  }

  async listDatabases(signal: AbortSignal): Promise<string[]> {
    return (await this.rows('SELECT current_database()', [], signal)).map((r) => String(r[0]));
  }

  async listSchemas(signal: AbortSignal): Promise<string[]> {
    // `main` counts as internal: the catalog schemas are left out by name.
    const rows = await this.rows(
      `SELECT schema_name FROM duckdb_schemas() WHERE database_name = current_database()
       AND schema_name NOT IN ('information_schema', 'pg_catalog') ORDER BY schema_name`,
      [],
      signal,
    );
    return rows.map((r) => String(r[0]));
  }

  async listTables(schema: string | undefined, signal: AbortSignal): Promise<TableSummary[]> {
    const rows = await this.rows(
      `SELECT schema_name, name, type FROM (${RELATIONS}) ${schema === undefined ? '' : 'WHERE schema_name = $1'} ORDER BY schema_name, name`,
      schema === undefined ? [] : [schema],
      signal,
    );
    return rows.map(([s, name, type]) => ({ schema: String(s), name: String(name), type: type as TableKind }));
  }

  /** The table or view, matched exactly first and then case-insensitively, as DuckDB matches names. */
  async #relation(schema: string, table: string, signal: AbortSignal): Promise<Relation | undefined> {
    const rows = await this.rows(
      `SELECT schema_name, name, type, sql FROM (${RELATIONS}) WHERE schema_name = $1 AND lower(name) = lower($2)
       ORDER BY name = $2 DESC LIMIT 1`,
      [schema, table],
      signal,
    );
    const [s, name, type, sql] = rows[0] ?? [];
    return s === undefined ? undefined : { schema: String(s), name: String(name), type: type as TableKind, sql: String(sql) };
  }

  async describeTable(schema: string, table: string, signal: AbortSignal): Promise<TableDescription | undefined> {
    const relation = await this.#relation(schema, table, signal);
    if (!relation) return undefined;
    const where = [relation.schema, relation.name];
    const columns = await this.rows(
      `SELECT column_name, data_type, is_nullable, column_default FROM duckdb_columns()
       WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2 ORDER BY column_index`,
      where,
      signal,
    );
    const constraint = (type: string, extra = '') =>
      `SELECT constraint_name, unnest(constraint_column_names)${extra} FROM duckdb_constraints()
       WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2 AND constraint_type = '${type}'
       ORDER BY constraint_index`;
    const primaryKey = (await this.rows(constraint('PRIMARY KEY'), where, signal)).map((r) => String(r[1]));
    const uniques = await this.rows(constraint('UNIQUE'), where, signal);
    const indexRows = await this.rows(
      `SELECT index_name, is_unique, trim(unnest(string_split(trim(expressions, '[]'), ',')))
       FROM duckdb_indexes() WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2 ORDER BY index_name`,
      where,
      signal,
    );
    const fkRows = await this.rows(
      constraint('FOREIGN KEY', `, referenced_table, unnest(referenced_column_names)`),
      where,
      signal,
    );
    return {
      ...relation,
      columns: describedColumns(columns, primaryKey),
      primary_key: primaryKey,
      indexes: groupIndexes([...uniques.map(([name, column]) => [name, true, column]), ...indexRows]),
      // DuckDB keys refer within the same schema and have no ON UPDATE / ON DELETE actions.
      foreign_keys: groupForeignKeys(
        fkRows.map(([name, column, refTable, refColumn]) => [name, relation.schema, refTable, column, refColumn, 'NO ACTION', 'NO ACTION']),
      ),
    };
  }

  async tableDdl(schema: string, table: string, signal: AbortSignal): Promise<string | undefined> {
    const relation = await this.#relation(schema, table, signal);
    if (!relation) return undefined;
    const indexes = await this.rows(
      `SELECT sql FROM duckdb_indexes() WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2
       AND sql IS NOT NULL ORDER BY index_name`,
      [relation.schema, relation.name],
      signal,
    );
    return [relation.sql, ...indexes.map((r) => String(r[0]))].join('\n\n');
  }

  async countRows(schema: string, table: string, exact: boolean, signal: AbortSignal): Promise<RowCount> {
    const relation = await this.#relation(schema, table, signal);
    if (!exact && relation?.type === 'table') {
      const [[estimate] = []] = await this.rows(
        `SELECT estimated_size FROM duckdb_tables() WHERE ${HERE} AND schema_name = $1 AND table_name = $2`,
        [relation.schema, relation.name],
        signal,
      );
      return { count: Number(estimate), exact: false };
    }
    const [[count] = []] = await this.rows(
      `SELECT count(*) FROM ${quoteIdent(relation?.schema ?? schema)}.${quoteIdent(relation?.name ?? table)}`,
      [],
      signal,
    );
    return { count: Number(count), exact: true };
  }
}
