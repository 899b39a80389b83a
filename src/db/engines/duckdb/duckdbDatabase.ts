import { describedColumns, groupForeignKeys, groupIndexes } from '../../catalog/catalogRows.js';
import type { HeldResult, HoldOptions, RowCount, TableDescription, TableKind, TableSummary } from '../../database.js';
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
    AS fingerprint FROM duckdb_columns() WHERE ${HERE}`;

  constructor(target: DuckdbTarget, clock: AppClock) {
    super(async () => {
      const { DuckdbSessions } = await import('./duckdbSessions.js');
      return DuckdbSessions.open(target, clock);
    }, dialect);
  }

  defaultSchema(): string {
    return 'main';
  }

  /** A cut read keeps its connection, read-only transaction and streaming result open (duckdbSessions.ts). */
  holdRead(sql: string, options: HoldOptions): Promise<HeldResult> {
    return this.holdOn(sql, options);
  }

  async listDatabases(signal: AbortSignal): Promise<string[]> {
    return (await this.rows('SELECT current_database() AS database_name', [], signal)).map((row) => String(row.database_name));
  }

  async listSchemas(signal: AbortSignal): Promise<string[]> {
    // `main` counts as internal: the catalog schemas are left out by name.
    const rows = await this.rows(
      `SELECT schema_name FROM duckdb_schemas() WHERE database_name = current_database()
       AND schema_name NOT IN ('information_schema', 'pg_catalog') ORDER BY schema_name`,
      [],
      signal,
    );
    return rows.map((row) => String(row.schema_name));
  }

  async listTables(schema: string | undefined, signal: AbortSignal): Promise<TableSummary[]> {
    const rows = await this.rows(
      `SELECT schema_name, name, type FROM (${RELATIONS}) ${schema === undefined ? '' : 'WHERE schema_name = $1'} ORDER BY schema_name, name`,
      schema === undefined ? [] : [schema],
      signal,
    );
    return rows.map((row) => ({ schema: String(row.schema_name), name: String(row.name), type: row.type as TableKind }));
  }

  /** The table or view, matched exactly first and then case-insensitively, as DuckDB matches names. */
  async #relation(schema: string, table: string, signal: AbortSignal): Promise<Relation | undefined> {
    const rows = await this.rows(
      `SELECT schema_name, name, type, sql FROM (${RELATIONS}) WHERE schema_name = $1 AND lower(name) = lower($2)
       ORDER BY name = $2 DESC LIMIT 1`,
      [schema, table],
      signal,
    );
    const [found] = rows;
    return found === undefined ? undefined : { schema: String(found.schema_name), name: String(found.name), type: found.type as TableKind, sql: String(found.sql) };
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
      `SELECT constraint_name AS key_name, unnest(constraint_column_names) AS column_name${extra} FROM duckdb_constraints()
       WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2 AND constraint_type = '${type}'
       ORDER BY constraint_index`;
    const primaryKey = (await this.rows(constraint('PRIMARY KEY'), where, signal)).map((row) => String(row.column_name));
    const uniques = await this.rows(constraint('UNIQUE'), where, signal);
    const indexRows = await this.rows(
      `SELECT index_name, is_unique, trim(unnest(string_split(trim(expressions, '[]'), ','))) AS column_name
       FROM duckdb_indexes() WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2 ORDER BY index_name`,
      where,
      signal,
    );
    const fkRows = await this.rows(
      constraint('FOREIGN KEY', `, referenced_table, unnest(referenced_column_names) AS referenced_column`),
      where,
      signal,
    );
    return {
      schema: relation.schema,
      name: relation.name,
      type: relation.type,
      columns: describedColumns(columns, primaryKey),
      primary_key: primaryKey,
      indexes: groupIndexes([...uniques.map((row) => ({ index_name: row.key_name, is_unique: true, column_name: row.column_name })), ...indexRows]),
      // DuckDB keys refer within the same schema and have no ON UPDATE / ON DELETE actions.
      foreign_keys: groupForeignKeys(
        fkRows.map((row) => ({ ...row, referenced_schema: relation.schema, on_update: 'NO ACTION', on_delete: 'NO ACTION' })),
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
    return [relation.sql, ...indexes.map((row) => String(row.sql))].join('\n\n');
  }

  async countRows(schema: string, table: string, exact: boolean, signal: AbortSignal): Promise<RowCount> {
    const relation = await this.#relation(schema, table, signal);
    if (!exact && relation?.type === 'table') {
      const [{ estimated_size: estimate } = {}] = await this.rows(
        `SELECT estimated_size FROM duckdb_tables() WHERE ${HERE} AND schema_name = $1 AND table_name = $2`,
        [relation.schema, relation.name],
        signal,
      );
      return { count: Number(estimate), exact: false };
    }
    const [{ row_count: count } = {}] = await this.rows(
      `SELECT count(*) AS row_count FROM ${quoteIdent(relation?.schema ?? schema)}.${quoteIdent(relation?.name ?? table)}`,
      [],
      signal,
    );
    return { count: Number(count), exact: true };
  }
}
