import { parquetWriter } from '../db/engines/registry.js';
import { type FileHandle, open } from 'node:fs/promises';
import type { Column } from '../db/database.js';
import { csvRecord, type ExportFormat, jsonRecord, uniqueNames } from './exportFormats.js';

/** An export's file, written a page of rows at a time as the read hands them on. */
export type ExportWriter = {
  page(rows: unknown[][], columns: Column[]): Promise<void>;
  /** Every row is written: completes the file (a CSV file of no rows still gets its header). */
  finish(columns: Column[]): Promise<void>;
  /** Releases what the writer holds, finished or not. */
  close(): Promise<void>;
};

/** CSV or JSON Lines: one write per page, the CSV header before the first. */
class TextWriter implements ExportWriter {
  readonly #file: FileHandle;
  readonly #format: 'csv' | 'jsonl';
  #names: string[] | undefined;

  constructor(file: FileHandle, format: 'csv' | 'jsonl') {
    this.#file = file;
    this.#format = format;
  }

  async #start(columns: Column[]): Promise<string[]> {
    if (this.#names) return this.#names;
    this.#names = uniqueNames(columns.map((c) => c.name));
    if (this.#format === 'csv') await this.#file.write(csvRecord(columns.map((c) => c.name)));
    return this.#names;
  }

  async page(rows: unknown[][], columns: Column[]): Promise<void> {
    const names = await this.#start(columns);
    await this.#file.write(rows.map((row) => (this.#format === 'csv' ? csvRecord(row) : jsonRecord(names, row))).join(''));
  }

  async finish(columns: Column[]): Promise<void> {
    await this.#start(columns);
  }

  close(): Promise<void> {
    return this.#file.close();
  }
}

/** The writer of `format` filling the file at `path` (made beforehand). */
export async function openWriter(format: ExportFormat, path: string): Promise<ExportWriter> {
  if (format !== 'parquet') return new TextWriter(await open(path, 'w'), format);
  // DuckDB (about 10 MB of library) is loaded only when someone writes Parquet: Sluice idles without it.
  const { ParquetWriter } = await parquetWriter();
  const writer = await ParquetWriter.open(path);
  const names = (columns: Column[]) => uniqueNames(columns.map((c) => c.name));
  return {
    page: (rows, columns) => writer.page(rows, names(columns)),
    finish: (columns) => writer.finish(names(columns)),
    close: () => writer.close(),
  };
}
