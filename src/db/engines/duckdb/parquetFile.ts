import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type DuckDBAppender, type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { EXPORTS } from '../../../core/contract.js';
import { SQL_DIALECTS } from '../../../sql/dialects.js';

type ParquetType = 'BOOLEAN' | 'BIGINT' | 'DOUBLE' | 'VARCHAR';

/** A value's own Parquet type: BOOLEAN, BIGINT (integers), DOUBLE (any other number) or VARCHAR; none for null. */
function valueType(value: unknown): ParquetType | undefined {
  if (value === null || value === undefined) return undefined;
  return typeof value === 'boolean' ? 'BOOLEAN' : typeof value === 'number' ? (Number.isSafeInteger(value) ? 'BIGINT' : 'DOUBLE') : 'VARCHAR';
}

/** The type that holds values of both: integers and fractions as DOUBLE, values that disagree otherwise as VARCHAR (their text). */
function wider(type: ParquetType | undefined, other: ParquetType | undefined): ParquetType | undefined {
  if (type === undefined || other === undefined || type === other) return type ?? other;
  return (type === 'BIGINT' && other === 'DOUBLE') || (type === 'DOUBLE' && other === 'BIGINT') ? 'DOUBLE' : 'VARCHAR';
}

function append(appender: DuckDBAppender, type: ParquetType | undefined, value: unknown): void {
  if (value === null || value === undefined) appender.appendNull();
  else if (type === 'BOOLEAN') appender.appendBoolean(value as boolean);
  else if (type === 'BIGINT') appender.appendBigInt(BigInt(value as number));
  else if (type === 'DOUBLE') appender.appendDouble(value as number);
  else appender.appendVarchar(typeof value === 'object' ? JSON.stringify(value) : String(value));
}

const { quoteIdent } = SQL_DIALECTS.duckdb;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * A Parquet file written a page of rows at a time through a scratch DuckDB database on disk beside it
 * (its memory capped at `EXPORTS.parquetMemoryMb`, one thread): each page is appended to a table as it
 * comes, so DuckDB keeps the rows, spilling them to its file rather than holding them in memory, and
 * `finish` COPYs the table to the Parquet file in row groups of `EXPORTS.parquetRowGroupRows`. Each
 * column's type follows its values: a page whose values widen it (integers, then a fraction: DOUBLE;
 * values that disagree: VARCHAR) alters the column first. The scratch database lives in a directory of
 * mode 0700 (the rows are no more readable there than in the 0600 file), which `close` removes.
 */
export class ParquetWriter {
  readonly #path: string;
  readonly #scratchDir: string;
  readonly #instance: DuckDBInstance;
  readonly #connection: DuckDBConnection;
  /** Each column's type so far; undefined while it has held only nulls (stored as VARCHAR until then). */
  #types: (ParquetType | undefined)[] | undefined;
  #appender: DuckDBAppender | undefined;

  private constructor(path: string, scratchDir: string, instance: DuckDBInstance, connection: DuckDBConnection) {
    this.#path = path;
    this.#scratchDir = scratchDir;
    this.#instance = instance;
    this.#connection = connection;
  }

  /** A writer of the Parquet file `path`, its scratch database in a new directory `path.XXXXXX`. */
  static async open(path: string): Promise<ParquetWriter> {
    const scratchDir = await mkdtemp(`${path}.`);
    let instance: DuckDBInstance | undefined;
    try {
      instance = await DuckDBInstance.create(join(scratchDir, 'rows.duckdb'), {
        memory_limit: `${EXPORTS.parquetMemoryMb}MiB`,
        threads: '1',
        temp_directory: join(scratchDir, 'spill'),
      });
      return new ParquetWriter(path, scratchDir, instance, await instance.connect());
    } catch (error) {
      instance?.closeSync();
      await rm(scratchDir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Appends a page of rows; `names` (unique) name the columns. */
  async page(rows: readonly unknown[][], names: readonly string[]): Promise<void> {
    const types = names.map((_, i) => rows.reduce<ParquetType | undefined>((type, row) => wider(type, valueType(row[i])), this.#types?.[i]));
    if (!this.#types) {
      await this.#connection.run(`CREATE TABLE export (${names.map((name, i) => `${quoteIdent(name)} ${types[i] ?? 'VARCHAR'}`).join(', ')})`);
    } else {
      const widened = types.flatMap((type, i) => (type !== this.#types?.[i] ? [i] : []));
      if (widened.length > 0) {
        this.#appender?.closeSync();
        this.#appender = undefined;
        for (const i of widened) await this.#connection.run(`ALTER TABLE export ALTER COLUMN ${quoteIdent(names[i] as string)} SET DATA TYPE ${types[i]}`);
      }
    }
    this.#types = types;
    const appender = (this.#appender ??= await this.#connection.createAppender('export'));
    for (const row of rows) {
      types.forEach((type, i) => append(appender, type, row[i]));
      appender.endRow();
    }
    appender.flushSync();
  }

  /** Writes the Parquet file from every page appended (none: a file of no rows, its columns VARCHAR). */
  async finish(names: readonly string[]): Promise<void> {
    if (!this.#types) await this.page([], names);
    this.#appender?.closeSync();
    this.#appender = undefined;
    await this.#connection.run(`COPY export TO ${literal(this.#path)} (FORMAT parquet, ROW_GROUP_SIZE ${EXPORTS.parquetRowGroupRows})`);
  }

  /** Closes the scratch database and removes its directory. */
  async close(): Promise<void> {
    try {
      this.#appender?.closeSync();
    } finally {
      this.#connection.closeSync();
      this.#instance.closeSync();
      await rm(this.#scratchDir, { recursive: true, force: true });
    }
  }
}
