// JSON values a driver hands over as text (PostgreSQL json and jsonb, MySQL JSON). Plain JavaScript so
// that db/results/resultBudget.js, which the SQLite query process loads too, can know them.
import { RESULTS } from '../../core/contract.js';

/**
 * A JSON value returned as its text, not as JSON: nested deeper than `RESULTS.jsonDepth` (JSON.stringify
 * would overflow the stack), or longer than a value may be (it would be cut anyway, and parsing it would
 * hold up the event loop). The byte budget cuts it like any long value and counts it in `values_as_text`.
 */
export class JsonText {
  /** @param {string} text */
  constructor(text) {
    this.text = text;
  }
}

/**
 * A JSON document (or an array of them) from the database: parsed, or a JsonText when it is too long or
 * too deep.
 * @param {string} text
 * @param {(text: string) => unknown} [parse] how the driver parses it
 * @returns {unknown}
 */
export function jsonValue(text, parse = JSON.parse) {
  if (text.length > RESULTS.cellBytes) return new JsonText(text);
  const value = parse(text);
  return deeperThan(value, RESULTS.jsonDepth) ? new JsonText(text) : value;
}

/**
 * Whether `value` nests arrays and objects deeper than `limit`, walked without recursion.
 * @param {unknown} value
 * @param {number} limit
 */
function deeperThan(value, limit) {
  if (value === null || typeof value !== 'object') return false;
  /** @type {[object, number][]} */
  const stack = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = /** @type {[object, number]} */ (stack.pop());
    if (depth > limit) return true;
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
