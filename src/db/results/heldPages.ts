import type { HeldPage, HeldRead, PageOptions } from '../database.js';
import { DriverFailure } from '../driverFailure.js';
import type { StatementOptions } from '../serverDatabase.js';
import { RESULTS } from '../../core/contract.js';
import { answerRows } from './answerRows.js';

/**
 * What every engine's held read shares: a page asked of a closed read is refused, a page is read with
 * the options of the read's first page (its `rowsAs`: an answer's page is serialised as the first was,
 * db/results/answerRows.ts) and of its own call, and a page that fails ends the read (its session is not
 * reused); closing happens once, however often it is asked for.
 */
export abstract class HeldPages implements HeldRead {
  readonly #rowsAs: StatementOptions['rowsAs'];
  #closing: Promise<void> | undefined;

  protected constructor(rowsAs: StatementOptions['rowsAs']) {
    this.#rowsAs = rowsAs;
  }

  /** Reads the next page within `page`'s limits, deadline and signal. */
  protected abstract page(page: StatementOptions): Promise<HeldPage>;

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
      const page = await this.page({ ...options, params: [], maxBytes: options.maxBytes ?? RESULTS.defaultBytes, rowsAs: this.#rowsAs });
      return this.#rowsAs === 'json' ? { ...page, result: await answerRows(page.result) } : page;
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
