import type { Engine } from '../core/shared/engineNames.js';
import { isName, isPunct, isWord, type SqlToken, tokenize } from './tokens.js';

/**
 * Where a statement reads which columns, as far as the private-column rule needs to know (issue 30):
 * a column named in the outer select list (or RETURNING) as a plain read reaches the result as itself
 * and can be masked there; a column compared for equality with another column, or grouped by, shows
 * only equality; a column anywhere else (a filter, an order, a function, a subquery, a CTE, a join's
 * other conditions) can leak what it holds through the answer's shape and is refused when private.
 * Wildcards and whole rows outside the outer select list, and functions that run SQL text, read
 * columns nobody can name here: `hidden` says which. An `alias` is a name given to another value: one
 * that takes a private column's name would pass that value off as the column.
 */
export type ReadPlace = 'output' | 'equality' | 'other' | 'alias';

/** A read of a column by name; an equality names the column it is compared with (none: a GROUP BY). */
export type ColumnRead = { column: string; place: ReadPlace; partner?: string };

/** One item of the outer select list or RETURNING: a plain column, a wildcard, or anything else. */
export type OutputItem = { kind: 'column'; column: string } | { kind: 'wildcard' } | { kind: 'expression' };

export type ColumnReads = {
  reads: ColumnRead[];
  /** What reads columns without naming them, where it cannot be masked: `* in a subquery`, `the whole row of u`… */
  hidden: string[];
  /**
   * The outer select list (or RETURNING), in order: one list per arm of a UNION ALL. None when there is
   * none, or when a set operator compares rows or SELECT … INTO takes them elsewhere.
   */
  outputs: OutputItem[][];
  /** Outputs an ORDER BY or GROUP BY names by position (1-based). */
  positions: number[];
};

/** Functions that read tables by name or run SQL text given as a string: what they read is never named. */
export const SQL_TEXT_FUNCTIONS = new Set([
  'QUERY', 'QUERY_TABLE', 'QUERY_TO_XML', 'QUERY_TO_XML_AND_XMLSCHEMA', 'QUERY_TO_XMLSCHEMA', 'TABLE_TO_XML',
  'TABLE_TO_XML_AND_XMLSCHEMA', 'TABLE_TO_XMLSCHEMA', 'SCHEMA_TO_XML', 'SCHEMA_TO_XML_AND_XMLSCHEMA', 'DATABASE_TO_XML',
  'DATABASE_TO_XML_AND_XMLSCHEMA', 'CURSOR_TO_XML', 'COLUMNS', 'ROW_TO_JSON', 'TO_JSON', 'TO_JSONB', 'JSON_OBJECT_AGG',
]);

/**
 * Words that are never a column unquoted: the reserved keywords a statement's structure is made of.
 * Other keywords (`FIRST`, `KEY`, `ROWS`…) may name a column, so they count as reads.
 */
const KEYWORDS = new Set(
  ('SELECT FROM WHERE AND OR NOT NULL IS IN AS ON JOIN INNER LEFT RIGHT FULL OUTER CROSS NATURAL USING GROUP BY ORDER HAVING ' +
    'LIMIT OFFSET UNION ALL DISTINCT INTERSECT EXCEPT WITH CASE WHEN THEN ELSE END ASC DESC BETWEEN LIKE EXISTS ANY SOME ' +
    'TRUE FALSE INSERT INTO VALUES UPDATE SET DELETE RETURNING CAST').split(' '),
);

/**
 * Relations and functions whose rows are values of other columns: the planner's statistics (most common
 * values, histograms, samples, per-segment minimum and maximum) and what summarises a table's values.
 */
export const VALUE_STATISTICS = new Set([
  'PG_STATS', 'PG_STATS_EXT', 'PG_STATS_EXT_EXPRS', 'PG_STATISTIC', 'PG_STATISTIC_EXT', 'PG_STATISTIC_EXT_DATA', 'PG_MCV_LIST_ITEMS',
  'SQLITE_STAT1', 'SQLITE_STAT2', 'SQLITE_STAT3', 'SQLITE_STAT4', 'COLUMN_STATISTICS', 'COLUMN_STATS', 'STORAGE_INFO',
  'PRAGMA_STORAGE_INFO', 'SUMMARIZE', 'PROCEDURE',
]);

const OUTPUT_END = new Set(['FROM', 'INTO', 'WHERE', 'GROUP', 'HAVING', 'ORDER', 'LIMIT', 'UNION', 'INTERSECT', 'EXCEPT', 'MINUS', 'WINDOW', 'QUALIFY', 'OFFSET', 'FETCH']);
const MERGING = new Set(['INTERSECT', 'EXCEPT', 'MINUS', 'INTO']);
const RELATION_AFTER = new Set(['FROM', 'JOIN', 'INTO', 'UPDATE', 'TABLE']);
const EQUALITY_BEFORE = new Set(['ON', 'AND', 'OR', 'WHERE', 'NOT', 'HAVING', 'WHEN']);
const EQUALITY_AFTER = new Set(['AND', 'OR', 'WHERE', 'GROUP', 'ORDER', 'LIMIT', 'JOIN', 'INNER', 'LEFT', 'RIGHT', 'FULL', 'CROSS', 'NATURAL', 'UNION', 'HAVING', 'THEN']);

/** Parenthesis depth before each token. */
function depths(tokens: SqlToken[]): number[] {
  let depth = 0;
  return tokens.map((t) => {
    if (isPunct(t, ')')) depth--;
    const at = depth;
    if (isPunct(t, '(')) depth++;
    return at;
  });
}

/** A plain column reference `[q.]…name` spanning tokens[from, to): its column's name, else undefined. */
function plainReference(tokens: SqlToken[], from: number, to: number): string | undefined {
  if (to <= from || (to - from) % 2 === 0) return undefined;
  for (let i = from; i < to; i++) {
    const ok = (i - from) % 2 === 0 ? isName(tokens[i]) && !isWord(tokens[i], KEYWORDS) && !/^[0-9]/.test(tokens[i]?.text ?? '') : isPunct(tokens[i], '.');
    if (!ok) return undefined;
  }
  return tokens[to - 1]?.text;
}

/** A wildcard `*` or `q.*` spanning tokens[from, to). */
const isWildcard = (tokens: SqlToken[], from: number, to: number) =>
  isPunct(tokens[to - 1], '*') && (to - from === 1 || (to - from === 3 && isName(tokens[from]) && isPunct(tokens[from + 1], '.')));

/**
 * What the token analysis makes of a statement, for engines whose parser Sluice does not have: it reads
 * only what the tokens prove and leaves every doubt to `other` or `hidden`, so that doubt means refusal.
 */
export function tokenColumnReads(sql: string, engine: Engine): ColumnReads {
  const tokens = tokenize(sql, engine);
  const depth = depths(tokens);
  const handled = new Set<number>();
  const result: ColumnReads = { reads: [], hidden: [], outputs: [], positions: [] };
  const relations = relationNames(tokens, handled, result.hidden);
  markTargets(tokens, depth, handled);
  outputLists(tokens, depth, handled, result);
  equalities(tokens, depth, handled, result);
  positionsOf(tokens, depth, result);
  if (isWord(tokens[0], new Set(['COPY', 'EXPORT']))) result.hidden.push(`${(tokens[0] as SqlToken).text} of whole tables, whose columns it does not name`);
  // Wherever it stands, a table, an alias or a call: the name alone is enough.
  for (const token of tokens) if (isName(token) && VALUE_STATISTICS.has(token.text)) result.hidden.push(`${token.text.toLowerCase()}, which shows values of other columns`);
  for (let i = 0; i < tokens.length; i++) {
    if (handled.has(i)) continue;
    const token = tokens[i] as SqlToken;
    if (isPunct(token, '*') && wildcardAt(tokens, i)) result.hidden.push('a * outside the outer select list');
    if (isWord(token, 'NATURAL')) result.hidden.push('a NATURAL join, which compares columns it does not name');
    if (isPunct(token, '#') && /^[0-9]/.test(tokens[i + 1]?.text ?? '')) result.hidden.push('a column named by its position (#n)');
    if (!isName(token) || isPunct(tokens[i + 1], '.')) continue;
    if (isPunct(tokens[i + 1], '(')) {
      if (SQL_TEXT_FUNCTIONS.has(token.text)) result.hidden.push(`${token.text.toLowerCase()}(), which reads what it is given by name`);
      continue;
    }
    if (token.kind === 'word' && (KEYWORDS.has(token.text) || /^[0-9]/.test(token.text))) continue;
    if (isWord(tokens[i - 1], 'AS')) {
      result.reads.push({ column: token.text, place: 'alias' });
      continue;
    }
    if (relations.has(token.text) && !isPunct(tokens[i - 1], '.')) result.hidden.push(`the whole row of ${token.text.toLowerCase()}`);
    result.reads.push({ column: token.text, place: 'other' });
  }
  for (const output of result.outputs.flat()) {
    if (output.kind === 'column' && relations.has(output.column)) result.hidden.push(`the whole row of ${output.column.toLowerCase()}`);
  }
  return result;
}

/** A `*` that is a wildcard, not a multiplication (`count(*)` is neither). */
function wildcardAt(tokens: SqlToken[], i: number): boolean {
  const before = tokens[i - 1];
  if (isPunct(before, '(') && isPunct(tokens[i + 1], ')') && isWord(tokens[i - 2], 'COUNT')) return false;
  return before === undefined || isPunct(before, '.') || isPunct(before, ',') || isPunct(before, '(') || (before.kind === 'word' && KEYWORDS.has(before.text));
}

/** Names after FROM, JOIN, INTO, UPDATE or TABLE (and after a comma in a FROM list): tables and their aliases. */
function relationNames(tokens: SqlToken[], handled: Set<number>, renamed: string[]): Set<string> {
  const names = new Set<string>();
  const calls = callDepths(tokens);
  for (let i = 0; i < tokens.length; i++) {
    // `EXTRACT(YEAR FROM d)`, `SUBSTRING(s FROM 2)`, `TRIM(x FROM s)`: a FROM inside a call names a value.
    if (!isWord(tokens[i], RELATION_AFTER) || calls[i]) continue;
    let at = i + 1;
    for (;;) {
      // A table function (`FROM query('…')`, `FROM read_csv(…)`) is a call, looked at as one.
      if (!isName(tokens[at]) || isWord(tokens[at], 'SELECT') || (isPunct(tokens[at + 1], '(') && !isWord(tokens[i], 'INTO'))) break;
      while (isName(tokens[at]) && isPunct(tokens[at + 1], '.') && isName(tokens[at + 2])) {
        handled.add(at).add(at + 1);
        at += 2;
      }
      names.add((tokens[at] as SqlToken).text);
      handled.add(at++);
      if (isWord(tokens[at], 'AS')) handled.add(at++);
      if (isName(tokens[at]) && !isWord(tokens[at], KEYWORDS)) {
        names.add((tokens[at] as SqlToken).text);
        handled.add(at++);
        if (isPunct(tokens[at], '(') && !isWord(tokens[i], 'INTO')) renamed.push(`the column names given to ${(tokens[at - 1] as SqlToken).text.toLowerCase()}`);
      }
      if (!isPunct(tokens[at], ',') || !isWord(tokens[i], 'FROM')) break;
      at++;
    }
  }
  return names;
}

/** Whether each token stands inside a function call's parentheses (not a subquery's or a list's). */
function callDepths(tokens: SqlToken[]): boolean[] {
  const opened: boolean[] = [];
  return tokens.map((t, i) => {
    if (isPunct(t, ')')) opened.pop();
    const inCall = opened.at(-1) ?? false;
    if (isPunct(t, '(')) {
      const before = tokens[i - 1];
      opened.push(isName(before) && !(before?.kind === 'word' && KEYWORDS.has(before.text)));
    }
    return inCall;
  });
}

/** The columns an INSERT lists and an UPDATE sets: written, not read. */
function markTargets(tokens: SqlToken[], depth: number[], handled: Set<number>): void {
  for (let i = 0; i < tokens.length; i++) {
    if (isWord(tokens[i], 'INTO')) {
      let at = i + 1;
      while (handled.has(at)) at++;
      if (!isPunct(tokens[at], '(')) continue;
      for (at++; at < tokens.length && !isPunct(tokens[at], ')'); at++) if (isName(tokens[at])) handled.add(at);
    }
    const setting = isWord(tokens[i - 1], 'SET') || (isPunct(tokens[i - 1], ',') && depth[i] === 0 && setClauseAt(tokens, i));
    if (setting && isName(tokens[i]) && isPunct(tokens[i + 1], '=')) handled.add(i);
  }
}

/** Whether a comma before `i` belongs to a SET list: the last clause word at depth 0 before it is SET. */
function setClauseAt(tokens: SqlToken[], i: number): boolean {
  for (let at = i - 1; at >= 0; at--) {
    if (isWord(tokens[at], new Set(['SET', 'SELECT', 'WHERE', 'FROM', 'VALUES', 'RETURNING']))) return isWord(tokens[at], 'SET');
  }
  return false;
}

/** The outer select lists (each arm of a UNION ALL) of a SELECT, and the RETURNING list of a write. */
function outputLists(tokens: SqlToken[], depth: number[], handled: Set<number>, result: ColumnReads): void {
  const query = isWord(tokens[0], new Set(['SELECT', 'WITH']));
  // Set operators that compare rows, and SELECT … INTO (a variable, a file, a table), take the outputs
  // somewhere they are not masked: every column they name is then a read like any other.
  const merging = tokens.some((t, i) => depth[i] === 0 && (isWord(t, MERGING) || (isWord(t, 'UNION') && !isWord(tokens[i + 1], 'ALL'))));
  for (let i = 0; i < tokens.length; i++) {
    if (depth[i] !== 0) continue;
    const returning = isWord(tokens[i], 'RETURNING');
    if (!returning && !(query && !merging && isWord(tokens[i], 'SELECT'))) continue;
    let at = i + 1;
    while (isWord(tokens[at], new Set(['ALL', 'DISTINCT']))) at++;
    let end = at;
    while (end < tokens.length && !(depth[end] === 0 && (isWord(tokens[end], OUTPUT_END) || isPunct(tokens[end], ';')))) end++;
    const arm: OutputItem[] = [];
    result.outputs.push(arm);
    for (const [from, to] of splitItems(tokens, depth, at, end)) {
      const item = outputItem(tokens, from, to);
      arm.push(item);
      if (item.kind === 'expression') {
        // The outer list's alias names a result column, masked by its name: not a value passed off as a column.
        if (isWord(tokens[to - 2], 'AS') && isName(tokens[to - 1])) handled.add(to - 1);
        continue;
      }
      for (let k = from; k < to; k++) handled.add(k);
      if (item.kind === 'column') result.reads.push({ column: item.column, place: 'output' });
    }
    i = end - 1;
  }
}

/** Items of a list between tokens[from, to), split at commas outside parentheses. */
function splitItems(tokens: SqlToken[], depth: number[], from: number, to: number): Array<[number, number]> {
  const items: Array<[number, number]> = [];
  let start = from;
  for (let i = from; i <= to; i++) {
    if (i === to || (depth[i] === depth[from] && isPunct(tokens[i], ','))) {
      if (i > start) items.push([start, i]);
      start = i + 1;
    }
  }
  return items;
}

/** An output item: `[q.]name [[AS] alias]`, `*` or `q.*`, or an expression. */
function outputItem(tokens: SqlToken[], from: number, to: number): OutputItem {
  if (isWildcard(tokens, from, to)) return { kind: 'wildcard' };
  for (const end of [to, to - 1, to - 2]) {
    const aliased = end === to || (end === to - 1 ? isName(tokens[to - 1]) && !isWord(tokens[to - 1], KEYWORDS) : isWord(tokens[to - 2], 'AS') && isName(tokens[to - 1]));
    const column = aliased ? plainReference(tokens, from, end) : undefined;
    if (column !== undefined) return { kind: 'column', column };
  }
  return { kind: 'expression' };
}

/** `[q.]a = [q.]b` between two plain references, standing alone as a condition: equality only. */
function equalities(tokens: SqlToken[], depth: number[], handled: Set<number>, result: ColumnReads): void {
  for (let i = 0; i < tokens.length; i++) {
    if (!isPunct(tokens[i], '=') || isPunct(tokens[i - 1], '!') || isPunct(tokens[i - 1], '<') || isPunct(tokens[i - 1], '>')) continue;
    const left = referenceEndingAt(tokens, i);
    const right = referenceStartingAt(tokens, i + 1);
    if (!left || !right) continue;
    const before = tokens[left.from - 1];
    const after = tokens[right.to];
    const standsAlone =
      (isWord(before, EQUALITY_BEFORE) || isPunct(before, '(')) && (after === undefined || isWord(after, EQUALITY_AFTER) || isPunct(after, ')') || isPunct(after, ';') || isPunct(after, ','));
    if (!standsAlone || depth[left.from] !== depth[right.to - 1]) continue;
    for (const [ref, other] of [[left, right], [right, left]] as const) {
      for (let k = ref.from; k < ref.to; k++) handled.add(k);
      result.reads.push({ column: ref.column, place: 'equality', partner: other.column });
    }
  }
}

function referenceEndingAt(tokens: SqlToken[], at: number): { from: number; to: number; column: string } | undefined {
  let from = at - 1;
  while (from >= 2 && isPunct(tokens[from - 1], '.') && isName(tokens[from - 2])) from -= 2;
  const column = plainReference(tokens, from, at);
  return column === undefined ? undefined : { from, to: at, column };
}

function referenceStartingAt(tokens: SqlToken[], at: number): { from: number; to: number; column: string } | undefined {
  let to = at + 1;
  while (isPunct(tokens[to], '.') && isName(tokens[to + 1])) to += 2;
  const column = plainReference(tokens, at, to);
  return column === undefined ? undefined : { from: at, to, column };
}

/** `ORDER BY 2` and `GROUP BY 1` at depth 0 name outputs by position. */
function positionsOf(tokens: SqlToken[], depth: number[], result: ColumnReads): void {
  for (let i = 0; i < tokens.length; i++) {
    if (depth[i] !== 0 || !isWord(tokens[i], 'BY') || !isWord(tokens[i - 1], new Set(['ORDER', 'GROUP']))) continue;
    let end = i + 1;
    while (end < tokens.length && !(depth[end] === 0 && (isWord(tokens[end], OUTPUT_END) || isPunct(tokens[end], ';')))) end++;
    for (const [from, to] of splitItems(tokens, depth, i + 1, end)) {
      const first = tokens[from];
      if (first?.kind === 'word' && /^[0-9]/.test(first.text)) result.positions.push(Number.parseInt(first.text, 10));
      // DuckDB's `ORDER BY ALL` and `GROUP BY ALL` name every output at once.
      if (to - from === 1 && isWord(first, 'ALL')) result.hidden.push(`${(tokens[i - 1] as SqlToken).text} BY ALL, which uses every output column`);
    }
  }
}
