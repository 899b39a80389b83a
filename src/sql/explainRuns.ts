import type { Engine } from '../core/shared/engineNames.js';
import { isName, isPunct, pastParentheses, type SqlToken } from './tokens.js';

const ANALYZE = new Set(['ANALYZE', 'ANALYSE']);
/** PostgreSQL's EXPLAIN options (up to 18); an option not known here might run the statement. */
const POSTGRES_OPTIONS = new Set([
  ...ANALYZE,
  'VERBOSE',
  'COSTS',
  'SETTINGS',
  'GENERIC_PLAN',
  'BUFFERS',
  'SERIALIZE',
  'WAL',
  'TIMING',
  'SUMMARY',
  'MEMORY',
  'FORMAT',
]);
/** The values PostgreSQL reads as false for a boolean option: `false`, `off` and `0`, as a word, a quoted name or a string. */
const OFF = new Set(['FALSE', 'OFF', '0', "'FALSE'", "'OFF'"]);

type Option = { name: SqlToken; value: SqlToken | undefined };

const mentionsAnalyze = (token: SqlToken | undefined) => token !== undefined && token.kind !== 'literal' && ANALYZE.has(token.text);

/**
 * Whether an EXPLAIN (MySQL's DESCRIBE too) runs the statement it wraps. ANALYZE runs it — any
 * mention of the word outside a string counts — except, on PostgreSQL, an `ANALYZE` option set to
 * false, off or 0 in a `( … )` list this can read: `EXPLAIN (ANALYZE false, COSTS off) DELETE …` only
 * plans. DuckDB runs the statement whatever value its ANALYZE option is given, so there every mention
 * counts.
 */
export function explainRuns(tokens: SqlToken[], engine: Engine): boolean {
  const options = engine === 'postgres' && isPunct(tokens[1], '(') ? optionList(tokens) : undefined;
  if (options === undefined) return tokens.some(mentionsAnalyze);
  const analyzes = options.list.some(({ name, value }) =>
    !POSTGRES_OPTIONS.has(name.text) || mentionsAnalyze(value) || (ANALYZE.has(name.text) && !(value && OFF.has(value.text.toUpperCase()))),
  );
  return analyzes || tokens.slice(options.end).some(mentionsAnalyze);
}

/**
 * PostgreSQL's `( name [value], … )` right after EXPLAIN, each value one word, quoted name or string,
 * and where the list ends; undefined for any other shape (a signed number, an expression).
 */
function optionList(tokens: SqlToken[]): { list: Option[]; end: number } | undefined {
  const end = pastParentheses(tokens, 1);
  if (end === undefined) return undefined;
  const list: Option[] = [];
  let at = 2;
  while (at < end - 1) {
    const name = tokens[at] as SqlToken;
    if (!isName(name)) return undefined;
    const next = tokens[at + 1];
    const value = next !== undefined && !isPunct(next, ',') && !isPunct(next, ')') ? next : undefined;
    if (value?.kind === 'punct') return undefined;
    list.push({ name, value });
    at += value ? 2 : 1;
    if (isPunct(tokens[at], ',') && at < end - 2) at++;
    else if (at !== end - 1) return undefined;
  }
  return list.length > 0 ? { list, end } : undefined;
}
