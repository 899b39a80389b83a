import { isName, isPunct, isWord, pastParentheses, type SqlToken } from './tokens.js';

/**
 * Where, inside one statement, another statement can begin, so that a verb there (`DELETE`, `UPDATE`)
 * changes data while the same word elsewhere is a name (`WITH replace AS …`, `SELECT 1 AS update`,
 * `t.delete`, `max(update)`). Every engine's grammar puts a statement only at the start, inside
 * parentheses (a CTE's body), or as the main statement after a WITH list, and no statement's verb is
 * followed by punctuation there (`replace(` is a function, `update)` a column). Answers true at the start,
 * right after `(` unless punctuation follows, and where each WITH list ends; undefined when a WITH is not
 * a list this can follow (`WITH TIME ZONE`, `WITH ROLLUP`, DuckDB's `USING KEY`): callers then count the
 * verb wherever it is.
 */
export type StatementStarts = (at: number) => boolean;

const SEARCH_ORDERS = new Set(['DEPTH', 'BREADTH']);

export function statementStarts(tokens: SqlToken[]): StatementStarts | undefined {
  const mains = new Set<number>();
  for (const [at, token] of tokens.entries()) {
    if (!isWord(token, 'WITH')) continue;
    const main = pastWithList(tokens, at + 1);
    if (main === undefined) return undefined;
    mains.add(main);
  }
  return (at) => at === 0 || mains.has(at) || (isPunct(tokens[at - 1], '(') && tokens[at + 1]?.kind !== 'punct');
}

/**
 * Past `[RECURSIVE] name [(columns)] AS [[NOT] MATERIALIZED] (body) [SEARCH …] [CYCLE …] [, …]`, where
 * the main statement begins; undefined at anything else.
 */
function pastWithList(tokens: SqlToken[], from: number): number | undefined {
  let at: number | undefined = isWord(tokens[from], 'RECURSIVE') ? from + 1 : from;
  for (;;) {
    if (!isName(tokens[at])) return undefined;
    at++;
    if (isPunct(tokens[at], '(')) at = pastParentheses(tokens, at);
    if (at === undefined || !isWord(tokens[at], 'AS')) return undefined;
    at++;
    if (isWord(tokens[at], 'NOT') && !isWord(tokens[++at], 'MATERIALIZED')) return undefined;
    if (isWord(tokens[at], 'MATERIALIZED')) at++;
    if (!isPunct(tokens[at], '(')) return undefined;
    at = pastSearchAndCycle(tokens, pastParentheses(tokens, at));
    if (at === undefined || !isPunct(tokens[at], ',')) return at;
    at++;
  }
}

/**
 * Past PostgreSQL's `SEARCH {DEPTH|BREADTH} FIRST BY c, … SET c` and `CYCLE c, … SET c [TO v DEFAULT v]
 * USING c` after a CTE's body, each optional; undefined when one is there but not in that shape.
 */
function pastSearchAndCycle(tokens: SqlToken[], from: number | undefined): number | undefined {
  let at = from;
  if (at !== undefined && isWord(tokens[at], 'SEARCH')) {
    if (!isWord(tokens[at + 1], SEARCH_ORDERS) || !isWord(tokens[at + 2], 'FIRST') || !isWord(tokens[at + 3], 'BY')) return undefined;
    at = pastSetName(tokens, pastNames(tokens, at + 4));
  }
  if (at !== undefined && isWord(tokens[at], 'CYCLE')) {
    at = pastSetName(tokens, pastNames(tokens, at + 1));
    if (at !== undefined && isWord(tokens[at], 'TO')) {
      if (!isConstant(tokens[at + 1]) || !isWord(tokens[at + 2], 'DEFAULT') || !isConstant(tokens[at + 3])) return undefined;
      at += 4;
    }
    if (at === undefined || !isWord(tokens[at], 'USING') || !isName(tokens[at + 1])) return undefined;
    at += 2;
  }
  return at;
}

/** Past `name, name, …`. */
function pastNames(tokens: SqlToken[], from: number): number | undefined {
  let at = from;
  if (!isName(tokens[at])) return undefined;
  while (isPunct(tokens[at + 1], ',') && isName(tokens[at + 2])) at += 2;
  return at + 1;
}

/** Past `SET name`. */
const pastSetName = (tokens: SqlToken[], at: number | undefined) =>
  at !== undefined && isWord(tokens[at], 'SET') && isName(tokens[at + 1]) ? at + 2 : undefined;

/** One token a constant can be: a string, a number, TRUE, FALSE or NULL. */
const isConstant = (token: SqlToken | undefined) => token?.kind === 'literal' || (token?.kind === 'word' && /^([0-9]|TRUE$|FALSE$|NULL$)/.test(token.text));
