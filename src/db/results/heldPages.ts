import type { HandOn, HeldPage, HeldRead, PageOptions, ResultSet } from '../database.js';
import { DriverFailure } from '../driverFailure.js';
import type { StatementOptions } from '../serverDatabase.js';
import { RESULTS } from '../../core/contract.js';
import { answerRows } from './answerRows.js';

/**
 * How many of `page`'s rows its reader hands on (`handOn`; all when absent), and whether rows remain
 * after them: unread past the page, or read and not handed on. A page that hands on no row ends the
 * read (its next page would be the same). Every engine's `holdRead` decides its first page so.
 */
export async function handedOn(page: HeldPage, handOn: HandOn | undefined): Promise<{ handed: number; more: boolean }> {
  const rows = page.result.rows.length;
  const handed = handOn ? Math.max(0, Math.min(rows, await handOn(page.result, page.more))) : rows;
  return { handed, more: handed > 0 && (page.more || handed < rows) };
}

/**
 * What every engine's held read shares: a page asked of a closed read is refused, a page is read with
 * the options of the read's first page (its `rowsAs`: an answer's page is serialised as the first was,
 * db/results/answerRows.ts) and of its own call, the next starts after the rows its reader handed on
 * (`handedOn`), and a page that fails ends the read (its session is not reused); closing happens once,
 * however often it is asked for.
 */
export abstract class HeldPages implements HeldRead {
  readonly #rowsAs: StatementOptions['rowsAs'];
  #closing: Promise<void> | undefined;

  protected constructor(rowsAs: StatementOptions['rowsAs']) {
    this.#rowsAs = rowsAs;
  }

  /** Reads the next page within `page`'s limits, deadline and signal; `more` when rows were left unread after it. */
  protected abstract page(page: StatementOptions): Promise<HeldPage<unknown[][]>>;

  /** The reader handed on the first `handed` rows of `page`: the next page starts after them. */
  protected abstract readOnAfter(handed: number, page: ResultSet): void;

  /** Ends the statement and its transaction and gives the session back (`broken`: the page that failed, if one did). */
  protected abstract release(broken: Error | undefined): Promise<void>;

  /** The error a failed page ends with (the engine's own mapping). */
  protected failure(error: unknown): unknown {
    return error;
  }

  async next(options: PageOptions): Promise<HeldPage> {
    if (this.#closing) throw new DriverFailure('not_connected', 'the read was closed');
    options.signal.throwIfAborted();
    try {
      const { handOn, ...limits } = options;
      const page = await this.page({ ...limits, params: [], maxBytes: options.maxBytes ?? RESULTS.defaultBytes, rowsAs: this.#rowsAs });
      const { handed, more } = await handedOn(page, handOn);
      this.readOnAfter(handed, page.result);
      return { result: this.#rowsAs === 'json' ? await answerRows(page.result) : page.result, more };
    } catch (error) {
      await this.#end(error as Error);
      throw options.signal.aborted ? error : this.failure(error);
    }
  }

  close(): Promise<void> {
    return this.#end(undefined);
  }

  #end(broken: Error | undefined): Promise<void> {
    this.#closing ??= this.release(broken);
    return this.#closing;
  }
}
