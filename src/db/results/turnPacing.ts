import { RESULTS } from '../../core/contract.js';
import type { RowBudget } from './resultBudget.js';

/**
 * When a driver that takes many rows in one go (a DuckDB chunk of 2,048 rows, a MySQL socket read of
 * many packets) gives the event loop a turn: each time the rows it took since the last one use about
 * `RESULTS.answerBatchChars` of the byte budget, so that converting and measuring them never holds it long.
 */
export class TurnPacing {
  readonly #budget: Pick<RowBudget, 'used'>;
  #since: number;

  /** `budget`: a RowBudget, or anything counting the bytes of the rows taken so far as `used`. */
  constructor(budget: Pick<RowBudget, 'used'>) {
    this.#budget = budget;
    this.#since = budget.used;
  }

  /** Whether a turn is due now; the next is counted from here. */
  due(): boolean {
    if (this.#budget.used - this.#since < RESULTS.answerBatchChars) return false;
    this.#since = this.#budget.used;
    return true;
  }
}
