import { describedColumns, groupForeignKeys, groupIndexes } from '../../catalog/catalogRows.js';
import type { ServerAddress } from '../../connections/connectionUrl.js';
import type { ExplainOptions, Explanation, HeldResult, HoldOptions, RowCount, TableDescription, TableKind, TableSummary } from '../../database.js';
import { postgresActuals } from './postgresQueryPerformance.js';
import { ServerDatabase } from '../../serverDatabase.js';
import type { SshTunnel } from '../../reach/sshTunnel.js';
import { sessionsThrough } from '../../reach/tunneledSessions.js';
import { SQL_DIALECTS } from '../../../sql/dialects.js';

const dialect = SQL_DIALECTS.postgres;
const { quoteIdent } = dialect;
const RELATION_KINDS = "('r', 'p', 'v', 'm', 'f')";
const USER_SCHEMAS = "n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'";

type Relation = { oid: number; schema: string; name: string; type: TableKind };

/** A PostgreSQL database: the catalog queries behind every tool, on the read sessions. */
export class PostgresDatabase extends ServerDatabase {
  readonly engine = 'postgres' as const;
  readonly #database: string;
  /** A relation created, altered (its pg_class row is rewritten) or dropped changes it; temp tables do not. */
  protected readonly schemaVersionSql =
    "SELECT count(*) || ':' || coalesce(max(xmin::text::bigint), 0) AS fingerprint FROM pg_class WHERE relpersistence <> 't'";

  constructor(address: ServerAddress, tunnel?: SshTunnel) {
    super(async () => {
      const { PostgresSessions } = await import('./postgresSessions.js');
      return sessionsThrough(address, tunnel, (reached) => new PostgresSessions(reached));
    }, dialect);
    this.#database = address.database;
  }

  defaultSchema(): string {
    return 'public';
  }

  /** A cut read stays open as a SCROLL cursor in a REPEATABLE READ, read-only transaction (postgresSessions.ts). */
  holdRead(sql: string, options: HoldOptions): Promise<HeldResult> {
    return this.holdOn(sql, options);
  }

  /** With `analyze`: EXPLAIN (ANALYZE, BUFFERS) in the read session's read-only transaction, rolled back. */
  override async explain(sql: string, options: ExplainOptions): Promise<Explanation> {
    if (!options.analyze) return super.explain(sql, options);
    const result = await this.plan(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, options);
    return { ...result, actual: postgresActuals(result.rows) };
  }

  async listDatabases(signal: AbortSignal): Promise<string[]> {
    const rows = await this.rows('SELECT datname FROM pg_database WHERE NOT datistemplate AND datallowconn ORDER BY datname COLLATE "C"', [], signal);
    const names = rows.map((row) => String(row.datname));
    return names.includes(this.#database) ? names : [this.#database, ...names];
  }

  async listSchemas(signal: AbortSignal): Promise<string[]> {
    const rows = await this.rows(`SELECT n.nspname FROM pg_namespace n WHERE ${USER_SCHEMAS} ORDER BY n.nspname COLLATE "C"`, [], signal);
    return rows.map((row) => String(row.nspname));
  }

  async listTables(schema: string | undefined, signal: AbortSignal): Promise<TableSummary[]> {
    const rows = await this.rows(
      `SELECT n.nspname, c.relname, c.relkind IN ('v', 'm') AS is_view FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind IN ${RELATION_KINDS} AND ${schema === undefined ? USER_SCHEMAS : 'n.nspname = $1'}
       ORDER BY n.nspname COLLATE "C", c.relname COLLATE "C"`,
      schema === undefined ? [] : [schema],
      signal,
    );
    return rows.map((row) => ({ schema: String(row.nspname), name: String(row.relname), type: row.is_view ? 'view' : 'table' }));
  }

  /** The table or view, matched exactly first and then case-insensitively (unquoted names fold to lower case). */
  async #relation(schema: string, table: string, signal: AbortSignal): Promise<Relation | undefined> {
    const rows = await this.rows(
      `SELECT c.oid::int AS oid, n.nspname, c.relname, c.relkind IN ('v', 'm') AS is_view FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind IN ${RELATION_KINDS} AND n.nspname = $1 AND lower(c.relname) = lower($2)
       ORDER BY c.relname = $2 DESC LIMIT 1`,
      [schema, table],
      signal,
    );
    const [found] = rows;
    return found === undefined ? undefined : { oid: Number(found.oid), schema: String(found.nspname), name: String(found.relname), type: found.is_view ? 'view' : 'table' };
  }

  async describeTable(schema: string, table: string, signal: AbortSignal): Promise<TableDescription | undefined> {
    const relation = await this.#relation(schema, table, signal);
    if (!relation) return undefined;
    const { oid } = relation;
    const columns = await this.rows(
      `SELECT a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS data_type, NOT a.attnotnull AS is_nullable,
              pg_get_expr(d.adbin, d.adrelid) AS column_default
       FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
       WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
      [oid],
      signal,
    );
    const primaryKey = await this.rows(
      `SELECT a.attname FROM pg_constraint con CROSS JOIN LATERAL unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
       JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
       WHERE con.conrelid = $1 AND con.contype = 'p' ORDER BY k.ord`,
      [oid],
      signal,
    );
    const indexRows = await this.rows(
      `SELECT i.relname AS index_name, ix.indisunique AS is_unique, coalesce(a.attname, pg_get_indexdef(ix.indexrelid, k.ord::int, true)) AS column_name
       FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid
       CROSS JOIN LATERAL unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
       LEFT JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = k.attnum
       WHERE ix.indrelid = $1 AND NOT ix.indisprimary AND k.ord <= ix.indnkeyatts ORDER BY i.relname, k.ord`,
      [oid],
      signal,
    );
    const fkRows = await this.rows(
      `SELECT con.conname AS key_name, fn.nspname AS referenced_schema, fc.relname AS referenced_table, a.attname AS column_name,
              fa.attname AS referenced_column, con.confupdtype AS on_update, con.confdeltype AS on_delete
       FROM pg_constraint con JOIN pg_class fc ON fc.oid = con.confrelid JOIN pg_namespace fn ON fn.oid = fc.relnamespace
       CROSS JOIN LATERAL unnest(con.conkey, con.confkey) WITH ORDINALITY AS k(col, fcol, ord)
       JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.col
       JOIN pg_attribute fa ON fa.attrelid = con.confrelid AND fa.attnum = k.fcol
       WHERE con.conrelid = $1 AND con.contype = 'f' ORDER BY con.conname, k.ord`,
      [oid],
      signal,
    );
    const pk = primaryKey.map((row) => String(row.attname));
    return {
      schema: relation.schema,
      name: relation.name,
      type: relation.type,
      columns: describedColumns(columns, pk),
      primary_key: pk,
      indexes: groupIndexes(indexRows),
      foreign_keys: groupForeignKeys(fkRows),
    };
  }

  async tableDdl(schema: string, table: string, signal: AbortSignal): Promise<string | undefined> {
    const relation = await this.#relation(schema, table, signal);
    if (!relation) return undefined;
    const name = `${quoteIdent(relation.schema)}.${quoteIdent(relation.name)}`;
    if (relation.type === 'view') {
      const [{ definition } = {}] = await this.rows('SELECT pg_get_viewdef($1::oid, true) AS definition', [relation.oid], signal);
      return `CREATE VIEW ${name} AS\n${String(definition).trimEnd()}`;
    }
    const columns = await this.rows(
      `SELECT a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS data_type, a.attnotnull AS not_null,
              pg_get_expr(d.adbin, d.adrelid) AS column_default
       FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
       WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
      [relation.oid],
      signal,
    );
    const constraints = await this.rows(
      `SELECT conname, pg_get_constraintdef(oid, true) AS definition FROM pg_constraint WHERE conrelid = $1
       ORDER BY CASE contype WHEN 'p' THEN 0 WHEN 'u' THEN 1 WHEN 'f' THEN 2 ELSE 3 END, conname`,
      [relation.oid],
      signal,
    );
    const indexes = await this.rows(
      `SELECT pg_get_indexdef(ix.indexrelid) AS definition FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid
       WHERE ix.indrelid = $1 AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = ix.indexrelid)
       ORDER BY i.relname`,
      [relation.oid],
      signal,
    );
    const lines = [
      ...columns.map(
        ({ column_name: column, data_type: type, not_null: notNull, column_default: dflt }) =>
          `  ${quoteIdent(String(column))} ${String(type)}${dflt === null ? '' : ` DEFAULT ${String(dflt)}`}${notNull ? ' NOT NULL' : ''}`,
      ),
      ...constraints.map((row) => `  CONSTRAINT ${quoteIdent(String(row.conname))} ${String(row.definition)}`),
    ];
    return [`CREATE TABLE ${name} (\n${lines.join(',\n')}\n);`, ...indexes.map((row) => `${String(row.definition)};`)].join('\n\n');
  }

  async countRows(schema: string, table: string, exact: boolean, signal: AbortSignal): Promise<RowCount> {
    const relation = await this.#relation(schema, table, signal);
    const target = `${quoteIdent(relation?.schema ?? schema)}.${quoteIdent(relation?.name ?? table)}`;
    if (!exact && relation) {
      const [{ estimate } = {}] = await this.rows('SELECT reltuples::bigint AS estimate FROM pg_class WHERE oid = $1', [relation.oid], signal);
      // -1: never analysed; a count is the only honest answer.
      if (Number(estimate) >= 0) return { count: Number(estimate), exact: false };
    }
    const [{ row_count: count } = {}] = await this.rows(`SELECT count(*) AS row_count FROM ${target}`, [], signal);
    return { count: Number(count), exact: true };
  }
}
