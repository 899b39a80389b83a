import { describedColumns, groupForeignKeys, groupIndexes } from '../../catalog/catalogRows.js';
import type { ServerAddress } from '../../connections/connectionUrl.js';
import type { ExplainOptions, Explanation, HeldResult, ReadOptions, RowCount, TableDescription, TableKind, TableSummary } from '../../database.js';
import { mysqlAnalyzer } from './mysqlQueryPerformance.js';
import { ServerDatabase } from '../../serverDatabase.js';
import type { SshTunnel } from '../../reach/sshTunnel.js';
import { sessionsThrough } from '../../reach/tunneledSessions.js';
import { type AppClock, systemClock } from '../../../core/clock.js';
import { SQL_DIALECTS } from '../../../sql/dialects.js';

const dialect = SQL_DIALECTS.mysql;
const { quoteIdent } = dialect;
const SYSTEM_SCHEMAS = "('information_schema', 'performance_schema', 'mysql', 'sys')";

type Relation = { schema: string; name: string; type: TableKind };

/** A MySQL or MariaDB database: `information_schema` behind every tool, on the read sessions. A schema is a database here. */
export class MysqlDatabase extends ServerDatabase {
  readonly engine = 'mysql' as const;
  readonly #database: string;
  /** Tables and columns of the connection's database: their count and newest creation (ALTER rebuilds). */
  protected readonly schemaVersionSql = `SELECT CONCAT(
      (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()), ':',
      (SELECT COALESCE(MAX(CREATE_TIME), '') FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()), ':',
      (SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE())) AS fingerprint`;

  constructor(address: ServerAddress, clock: AppClock = systemClock, tunnel?: SshTunnel) {
    super(async () => {
      const { MysqlSessions } = await import('./mysqlSessions.js');
      return sessionsThrough(address, tunnel, (reached) => new MysqlSessions(reached, clock));
    }, dialect);
    this.#database = address.database;
  }

  defaultSchema(): string {
    return this.#database;
  }

  /** A cut read's statement stays open, paused, in a consistent-snapshot read-only transaction (mysqlSessions.ts). */
  holdRead(sql: string, options: ReadOptions): Promise<HeldResult> {
    return this.holdOn(sql, options);
  }

  /** With `analyze`: the server's own analysis (mysqlAnalyzer) in the read session's read-only transaction, rolled back. */
  override async explain(sql: string, options: ExplainOptions): Promise<Explanation> {
    if (!options.analyze) return super.explain(sql, options);
    const [{ version } = {}] = await this.rows('SELECT VERSION() AS version', [], options.signal);
    const analyzer = mysqlAnalyzer(String(version));
    const result = await this.plan(`${analyzer.prefix} ${sql}`, options);
    return { ...result, actual: analyzer.actual(result.rows) };
  }

  async listDatabases(signal: AbortSignal): Promise<string[]> {
    return this.listSchemas(signal);
  }

  async listSchemas(signal: AbortSignal): Promise<string[]> {
    const rows = await this.rows(
      `SELECT SCHEMA_NAME AS schema_name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME NOT IN ${SYSTEM_SCHEMAS} ORDER BY BINARY SCHEMA_NAME`,
      [],
      signal,
    );
    return rows.map((row) => String(row.schema_name));
  }

  /** Without a schema, the connection's own database: the server's other databases are named explicitly. */
  async listTables(schema: string | undefined, signal: AbortSignal): Promise<TableSummary[]> {
    const rows = await this.rows(
      `SELECT TABLE_SCHEMA AS schema_name, TABLE_NAME AS table_name, TABLE_TYPE = 'VIEW' AS is_view FROM information_schema.TABLES
       WHERE TABLE_SCHEMA = ? ORDER BY BINARY TABLE_NAME`,
      [schema ?? this.#database],
      signal,
    );
    return rows.map((row) => ({ schema: String(row.schema_name), name: String(row.table_name), type: Number(row.is_view) ? 'view' : 'table' }));
  }

  async #relation(schema: string, table: string, signal: AbortSignal): Promise<Relation | undefined> {
    const rows = await this.rows(
      `SELECT TABLE_SCHEMA AS schema_name, TABLE_NAME AS table_name, TABLE_TYPE = 'VIEW' AS is_view FROM information_schema.TABLES
       WHERE TABLE_SCHEMA = ? AND LOWER(TABLE_NAME) = LOWER(?) ORDER BY TABLE_NAME = ? DESC LIMIT 1`,
      [schema, table, table],
      signal,
    );
    const [found] = rows;
    return found === undefined ? undefined : { schema: String(found.schema_name), name: String(found.table_name), type: Number(found.is_view) ? 'view' : 'table' };
  }

  async describeTable(schema: string, table: string, signal: AbortSignal): Promise<TableDescription | undefined> {
    const relation = await this.#relation(schema, table, signal);
    if (!relation) return undefined;
    const where = [relation.schema, relation.name];
    const columns = await this.rows(
      `SELECT COLUMN_NAME AS column_name, COLUMN_TYPE AS data_type, IS_NULLABLE = 'YES' AS is_nullable, COLUMN_DEFAULT AS column_default
       FROM information_schema.COLUMNS
       WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
      where,
      signal,
    );
    const primaryKey = await this.rows(
      `SELECT COLUMN_NAME AS column_name FROM information_schema.KEY_COLUMN_USAGE
       WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION`,
      where,
      signal,
    );
    const indexRows = await this.rows(
      `SELECT INDEX_NAME AS index_name, NON_UNIQUE = 0 AS is_unique, COLUMN_NAME AS column_name FROM information_schema.STATISTICS
       WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND INDEX_NAME <> 'PRIMARY' ORDER BY INDEX_NAME, SEQ_IN_INDEX`,
      where,
      signal,
    );
    const fkRows = await this.rows(
      `SELECT k.CONSTRAINT_NAME AS key_name, k.REFERENCED_TABLE_SCHEMA AS referenced_schema, k.REFERENCED_TABLE_NAME AS referenced_table,
              k.COLUMN_NAME AS column_name, k.REFERENCED_COLUMN_NAME AS referenced_column, r.UPDATE_RULE AS on_update, r.DELETE_RULE AS on_delete
       FROM information_schema.KEY_COLUMN_USAGE k JOIN information_schema.REFERENTIAL_CONSTRAINTS r
         ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME AND r.TABLE_NAME = k.TABLE_NAME
       WHERE k.TABLE_SCHEMA = ? AND k.TABLE_NAME = ? AND k.REFERENCED_TABLE_NAME IS NOT NULL
       ORDER BY k.CONSTRAINT_NAME, k.ORDINAL_POSITION`,
      where,
      signal,
    );
    const pk = primaryKey.map((row) => String(row.column_name));
    return {
      ...relation,
      columns: describedColumns(columns, pk),
      primary_key: pk,
      indexes: groupIndexes(indexRows),
      foreign_keys: groupForeignKeys(fkRows),
    };
  }

  async tableDdl(schema: string, table: string, signal: AbortSignal): Promise<string | undefined> {
    const relation = await this.#relation(schema, table, signal);
    if (!relation) return undefined;
    // SHOW CREATE answers (Table, Create Table), or (View, Create View, …) for a view.
    const [answer = {}] = await this.rows(`SHOW CREATE TABLE ${quoteIdent(relation.schema)}.${quoteIdent(relation.name)}`, [], signal);
    return `${String(answer['Create Table'] ?? answer['Create View'])};`;
  }

  async countRows(schema: string, table: string, exact: boolean, signal: AbortSignal): Promise<RowCount> {
    const relation = await this.#relation(schema, table, signal);
    if (!exact && relation?.type === 'table') {
      const [{ estimate } = {}] = await this.rows(
        'SELECT TABLE_ROWS AS estimate FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
        [relation.schema, relation.name],
        signal,
      );
      if (estimate !== null && estimate !== undefined) return { count: Number(estimate), exact: false };
    }
    const target = `${quoteIdent(relation?.schema ?? schema)}.${quoteIdent(relation?.name ?? table)}`;
    const [{ row_count: count } = {}] = await this.rows(`SELECT COUNT(*) AS row_count FROM ${target}`, [], signal);
    return { count: Number(count), exact: true };
  }
}
