import { browseSql, type SqlDialect } from './browseSql.js';
import type {
  BrowseRequest,
  Database,
  Engine,
  ReadOptions,
  ResultSet,
  RowCount,
  TableDescription,
  TableSummary,
} from './database.js';

export type StatementOptions = { params: unknown[]; maxRows: number; timeoutMs: number; signal: AbortSignal };

/** A server's read and write sessions, as its driver keeps them. */
export type ServerSessions = {
  read(sql: string, options: StatementOptions): Promise<ResultSet>;
  write(sql: string, options: StatementOptions): Promise<ResultSet>;
  close(): Promise<void>;
};

const INTROSPECTION = { maxRows: 100_000, timeoutMs: 30_000 };

/**
 * What PostgreSQL and MySQL share: statements go to the driver's sessions, and the catalog queries of
 * each engine run as reads on them. Subclasses supply the catalog queries. The driver is loaded and
 * its pools made on first use, so an application with no server connection in use never loads it.
 */
export abstract class ServerDatabase implements Database {
  abstract readonly engine: Exclude<Engine, 'sqlite'>;
  readonly #openSessions: () => Promise<ServerSessions>;
  #sessions: Promise<ServerSessions> | undefined;
  readonly #dialect: SqlDialect;

  protected constructor(openSessions: () => Promise<ServerSessions>, dialect: SqlDialect) {
    this.#openSessions = openSessions;
    this.#dialect = dialect;
  }

  #use(): Promise<ServerSessions> {
    this.#sessions ??= this.#openSessions();
    return this.#sessions;
  }

  abstract listDatabases(signal: AbortSignal): Promise<string[]>;
  abstract listSchemas(signal: AbortSignal): Promise<string[]>;
  abstract defaultSchema(): string;
  abstract listTables(schema: string | undefined, signal: AbortSignal): Promise<TableSummary[]>;
  abstract describeTable(schema: string, table: string, signal: AbortSignal): Promise<TableDescription | undefined>;
  abstract tableDdl(schema: string, table: string, signal: AbortSignal): Promise<string | undefined>;
  abstract countRows(schema: string, table: string, exact: boolean, signal: AbortSignal): Promise<RowCount>;

  /** A catalog query's rows. */
  protected async rows(sql: string, params: unknown[], signal: AbortSignal): Promise<unknown[][]> {
    return (await (await this.#use()).read(sql, { ...INTROSPECTION, params, signal })).rows;
  }

  async explain(sql: string, signal: AbortSignal): Promise<ResultSet> {
    return (await this.#use()).read(`EXPLAIN ${sql}`, { ...INTROSPECTION, params: [], signal });
  }

  async read(sql: string, options: ReadOptions): Promise<ResultSet> {
    return (await this.#use()).read(sql, { ...options, params: options.params ?? [] });
  }

  async write(sql: string, options: ReadOptions): Promise<ResultSet> {
    return (await this.#use()).write(sql, { ...options, params: options.params ?? [] });
  }

  browse(request: BrowseRequest, options: ReadOptions): Promise<ResultSet> {
    const { sql, params } = browseSql(request, this.#dialect);
    return this.read(sql, { ...options, params });
  }

  async close(): Promise<void> {
    await (await this.#sessions)?.close();
  }
}
