// The pages of a read that is written out as it is read (export_data), shared by the SQLite query
// process (plain JavaScript, so the same file serves it) and the server drivers.
import { RowBudget } from './resultBudget.js';

/**
 * Rows taken one at a time into pages of at most `pageRows` rows or about `pageBytes` of JSON, within
 * the read's `maxRows` and byte budget (cells past the cell limit are cut and counted, as every read's).
 * The reader hands on each full page (`next()`) before it reads more, so only a page is ever held.
 */
export class RowPages {
  /**
   * @param {{ maxRows: number, maxBytes: number, cellBytes?: number, pageRows: number, pageBytes: number }} limits
   */
  constructor({ maxRows, maxBytes, cellBytes, pageRows, pageBytes }) {
    this.budget = new RowBudget(maxBytes, { cellBytes });
    this.maxRows = maxRows;
    this.pageRows = pageRows;
    this.pageBytes = pageBytes;
    /** @type {unknown[][]} the page being filled */
    this.page = [];
    this.pageStart = this.budget.used;
    /** Rows taken in all. */
    this.count = 0;
    /** @type {'max_rows' | 'max_bytes' | undefined} */
    this.truncatedBy = undefined;
  }

  /** The read ends here: a row was refused. */
  get done() {
    return this.truncatedBy !== undefined;
  }

  /** The page holds its rows or bytes: hand it on before reading more. */
  get full() {
    return this.page.length >= this.pageRows || this.budget.used - this.pageStart >= this.pageBytes;
  }

  /** Rows still worth reading: up to `maxRows`, and one more to know that there were more. */
  get rowsLeft() {
    return this.maxRows + 1 - this.count;
  }

  /**
   * Takes `row` (its long cells cut in place) into the page; false, and the read ends, when it is past
   * `maxRows` or the budget.
   * @param {unknown[]} row
   * @returns {boolean}
   */
  take(row) {
    if (this.done) return false;
    if (this.count === this.maxRows) this.truncatedBy = 'max_rows';
    else if (!this.budget.take(row)) this.truncatedBy = 'max_bytes';
    else {
      this.page.push(row);
      this.count += 1;
      return true;
    }
    return false;
  }

  /** The page filled so far; the next one starts empty. */
  next() {
    const page = this.page;
    this.page = [];
    this.pageStart = this.budget.used;
    return page;
  }

  /** How the read ended. */
  summary() {
    return {
      rows: this.count,
      truncated: this.done,
      ...(this.truncatedBy ? { truncatedBy: this.truncatedBy } : {}),
      cellsCut: this.budget.cellsCut,
    };
  }
}
