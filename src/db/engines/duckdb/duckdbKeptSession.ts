import { type DuckDBResult, ResultReturnType, StatementType } from '@duckdb/node-api';
import { DriverFailure } from '../../driverFailure.js';
import { exactBytes, type Keep, type KeptSession } from '../../keepSteps.js';
import type { ExactValue } from '../../keptWrites.js';
import { readAsBytes } from '../../../sql/exactDialects.js';
import type { TypedColumn } from '../../../sql/keptRowsSql.js';
import { RESULTS } from '../../../core/contract.js';
import { nextTurn } from '../../../core/nextTurn.js';

/** Runs a statement's work on the session's connection, failing once the statement was stopped (duckdbSessions.ts). */
type Step = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * An exact value as DuckDB takes it back: text (what the cast to VARCHAR gave, cast to the column's type
 * in the statement), a BLOB's base64 (decoded by the statement's `from_base64`).
 */
function boundValue(value: ExactValue): unknown {
  if (value === null || typeof value === 'string') return value;
  const text = 'b' in value ? value.b : 'i' in value ? value.i : 'f' in value ? value.f : undefined;
  if (typeof text !== 'string') throw new DriverFailure('invalid_argument', 'a kept value is not an exact value');
  return text;
}

/**
 * The result's rows in exact form (every column read as VARCHAR, a BLOB column's base64 as `{ b }`), those
 * that fit `keep` (past it, none: `over`), and the rows a write changed (its RETURNING rows counted). A
 * read stops fetching at the first row past `keep`; with `toEnd` every chunk is fetched.
 */
async function exactRows(result: DuckDBResult, bytes: boolean[], keep: Keep, step: Step) {
  if (result.returnType === ResultReturnType.CHANGED_ROWS) {
    await step(() => result.fetchChunk());
    return { rows: [], rowsAffected: Number(result.rowsChanged), over: false };
  }
  let rows: ExactValue[][] = [];
  let size = 0;
  let count = 0;
  let over = false;
  let paced = 0;
  for (let chunk = await step(() => result.fetchChunk()); chunk && chunk.rowCount > 0; chunk = await step(() => result.fetchChunk())) {
    count += chunk.rowCount;
    const vectors = bytes.map((_, i) => chunk.getColumnVector(i));
    for (let row = 0; row < chunk.rowCount && !over; row++) {
      const values = vectors.map((vector, i): ExactValue => {
        const value = vector.getItem(row) as string | null;
        return value !== null && bytes[i] ? { b: value } : value;
      });
      size += exactBytes(values);
      over = rows.length === keep.rows || size > keep.bytes;
      // Converting a chunk of 2,048 wide rows at once could hold the event loop: a turn every batch's worth of bytes.
      if (size - paced >= RESULTS.answerBatchChars) {
        paced = size;
        await nextTurn();
      }
      if (over) rows = [];
      else rows.push(values);
    }
    chunk.reset();
    if (over && !keep.toEnd) break;
  }
  return { rows, rowsAffected: result.statementType === StatementType.SELECT ? 0 : count, over };
}

/**
 * The session the shared steps (keepSteps.js, restoreSteps.js) run through inside the transaction held on
 * one connection: `run` streams a statement there, `write` runs the approved one as `write` answers it.
 * `columns` are the table's, in the order its rows are read.
 */
export function duckdbKeptSession(
  run: (sql: string, params: unknown[]) => Promise<DuckDBResult>,
  step: Step,
  columns: TypedColumn[],
  write: (sql: string, params: unknown[]) => Promise<unknown>,
): KeptSession {
  const bytes = columns.map(readAsBytes);
  return {
    exact: async (sql, params, keep) => exactRows(await run(sql, params), bytes, keep, step),
    write,
    bind: boundValue,
    turn: nextTurn,
  };
}
