import { RESULTS } from '../../core/contract.js';
import { nextTurn } from '../../core/nextTurn.js';
import { JsonRows, type ResultSet, type Rows } from '../database.js';
import { rowText } from './valueText.js';

/** Rows serialised in the first batch; later batches take as many as make about `RESULTS.answerBatchChars`. */
const FIRST_BATCH_ROWS = 16;

/**
 * A server driver's result with its rows serialised for an answer (`rowsAs: 'json'`), as the SQLite
 * query process hands them over: JsonRows, the rows' JSON text and the JSON-escaped lines of the
 * result's text (see JsonRows). Serialised a batch of about `RESULTS.answerBatchChars` of JSON at a
 * time, a turn apart, so that a 16 MiB answer never holds the event loop in one pass. Rows serialised
 * already are left as they are.
 */
export async function answerRows(result: ResultSet<Rows>): Promise<ResultSet<JsonRows>> {
  const rows = result.rows;
  if (rows instanceof JsonRows) return { ...result, rows };
  const json: string[] = [];
  const lines: string[] = [];
  let batch = FIRST_BATCH_ROWS;
  for (let from = 0; from < rows.length; ) {
    const taken = rows.slice(from, from + batch);
    const text = JSON.stringify(taken);
    json.push(text.slice(1, -1));
    lines.push(JSON.stringify(taken.map(rowText).join('\n')).slice(1, -1));
    from += taken.length;
    batch = Math.max(1, Math.floor((RESULTS.answerBatchChars * taken.length) / text.length));
    if (from < rows.length) await nextTurn();
  }
  return { ...result, rows: rows.length === 0 ? new JsonRows('[]', 0, '') : JsonRows.joined(json, lines, rows.length) };
}
