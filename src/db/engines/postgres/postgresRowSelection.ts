import { isDeepStrictEqual } from 'node:util';
import type { NotSelectable, RowSelection } from '../../../sql/countQuery.js';
import { selectRows } from '../../../sql/countQuery.js';
import { parser } from './postgresParser.js';

type Node = Record<string, unknown>;
type Token = { start: number; end: number; text: string; tokenName: string };

const isObject = (value: unknown): value is Node => typeof value === 'object' && value !== null;
/** Where a node was written: differs between the statement and the SELECT, means nothing. */
const POSITIONS = new Set(['location', 'list_start', 'list_end', 'stmt_location', 'stmt_len']);
const COMMENTS = new Set(['C_COMMENT', 'SQL_COMMENT']);

/** A parse tree without its source positions, each `$n` renumbered through `numbers`. */
function comparable(node: unknown, numbers: Map<number, number>): unknown {
  if (Array.isArray(node)) return node.map((n) => comparable(n, numbers));
  if (!isObject(node)) return node;
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) {
    if (POSITIONS.has(key)) continue;
    if (key === 'ParamRef' && isObject(value)) out[key] = { number: numbers.get(Number(value.number)) ?? -1 };
    else out[key] = comparable(value, numbers);
  }
  return out;
}

const hasKey = (node: unknown, key: string): boolean =>
  Array.isArray(node) ? node.some((n) => hasKey(n, key)) : isObject(node) && Object.entries(node).some(([k, v]) => k === key || hasKey(v, key));

/**
 * PostgreSQL, with its own parser: an UPDATE or DELETE of one relation (no WITH, FROM or USING, no
 * WHERE CURRENT OF), its target and condition cut from the text at the tokens PostgreSQL's lexer
 * reports, the condition's `$n` renumbered from 1. The SELECT made from them must parse to the same
 * relation and the same condition as the statement's, or nothing is previewed.
 */
export async function postgresRowSelection(sql: string, params: unknown[]): Promise<RowSelection | NotSelectable> {
  const { parse, scan } = await parser();
  const [parsed] = (await parse(sql)).stmts ?? [];
  const statement = (parsed?.stmt ?? {}) as Node;
  const verb = 'UpdateStmt' in statement ? 'UPDATE' : 'DeleteStmt' in statement ? 'DELETE' : undefined;
  if (verb === undefined) return { refused: 'only UPDATE and DELETE are previewed' };
  const tree = (statement.UpdateStmt ?? statement.DeleteStmt) as Node;
  if (tree.withClause || tree.fromClause || tree.usingClause) return { refused: 'a statement with WITH, FROM or USING is not previewed' };
  if (hasKey(tree.whereClause, 'CurrentOfExpr')) return { refused: 'WHERE CURRENT OF is not previewed' };

  const tokens = inCodeUnits(sql, (await scan(sql)).tokens as Token[]).filter((t) => t.text !== ';' && !COMMENTS.has(t.tokenName));
  const keyword = (text: string, from: number) => {
    let depth = 0;
    for (let i = from; i < tokens.length; i++) {
      const t = tokens[i] as Token;
      if (t.text === '(' || t.text === '[') depth++;
      else if (t.text === ')' || t.text === ']') depth--;
      else if (depth === 0 && t.text.toUpperCase() === text && t.tokenName !== 'IDENT') return i;
    }
    return -1;
  };
  const targetStart = verb === 'UPDATE' ? 1 : keyword('FROM', 0) + 1;
  const where = keyword('WHERE', targetStart);
  const returning = keyword('RETURNING', targetStart);
  const targetEnd = verb === 'UPDATE' ? keyword('SET', targetStart) : [where, returning, tokens.length].find((i) => i !== -1);
  const end = returning === -1 ? tokens.length : returning;
  if (targetEnd === undefined || targetEnd <= targetStart || (where !== -1 && where >= end)) return { refused: 'the statement’s parts were not found' };

  // The condition's placeholders, renumbered in order of first use; one also used outside it could be typed otherwise.
  const numbers = new Map<number, number>();
  const inside = (i: number) => where !== -1 && i > where && i < end;
  for (const [i, t] of tokens.entries()) {
    const n = Number(t.text.slice(1));
    if (t.tokenName === 'PARAM' && inside(i) && !numbers.has(n)) numbers.set(n, numbers.size + 1);
  }
  if (tokens.some((t, i) => t.tokenName === 'PARAM' && !inside(i) && numbers.has(Number(t.text.slice(1))))) {
    return { refused: 'a value is bound both in the condition and elsewhere' };
  }
  if ([...numbers.keys()].some((n) => n < 1 || n > params.length)) return { refused: 'the values do not match the placeholders' };

  const selection: RowSelection = {
    target: sql.slice((tokens[targetStart] as Token).start, (tokens[targetEnd - 1] as Token).end),
    condition: where === -1 ? undefined : conditionText(sql, tokens.slice(where + 1, end), numbers),
    params: [...numbers.keys()].map((n) => params[n - 1]),
  };

  // Read back with the same parser: the same relation, the same condition, nothing else.
  const [read] = (await parse(selectRows(selection, 'count(*)')).catch(() => ({ stmts: [] }))).stmts ?? [];
  const select = ((read?.stmt ?? {}) as Node).SelectStmt as Node | undefined;
  const same =
    select !== undefined &&
    Array.isArray(select.fromClause) &&
    select.fromClause.length === 1 &&
    isDeepStrictEqual(comparable(select.fromClause[0], numbers), comparable({ RangeVar: tree.relation }, numbers)) &&
    isDeepStrictEqual(comparable(select.whereClause, identity(numbers)), comparable(tree.whereClause, numbers));
  return same ? selection : { refused: 'the statement cannot be cut without changing its meaning' };
}

/**
 * The lexer's tokens with their places in `sql` as JavaScript indexes them (UTF-16 code units): it
 * reports bytes of UTF-8, which differ from the first character past ASCII on (`'ü'` cut in the middle).
 */
function inCodeUnits(sql: string, tokens: Token[]): Token[] {
  if (Buffer.byteLength(sql, 'utf8') === sql.length) return tokens;
  let byte = 0;
  let index = 0;
  const at = (target: number) => {
    while (byte < target && index < sql.length) {
      const code = sql.codePointAt(index) as number;
      byte += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
      index += code > 0xffff ? 2 : 1;
    }
    return index;
  };
  return tokens.map((t) => ({ ...t, start: at(t.start), end: at(t.end) }));
}

/** The renumbering already applied to the cut text: each new number stands for itself. */
const identity = (numbers: Map<number, number>) => new Map([...numbers.values()].map((n) => [n, n]));

/** The condition's text from its tokens, each `$n` renumbered as `numbers` says. */
function conditionText(sql: string, condition: Token[], numbers: Map<number, number>): string {
  const parts: string[] = [];
  let from = (condition[0] as Token).start;
  for (const t of condition) {
    if (t.tokenName !== 'PARAM') continue;
    parts.push(sql.slice(from, t.start), `$${numbers.get(Number(t.text.slice(1)))}`);
    from = t.end;
  }
  parts.push(sql.slice(from, (condition[condition.length - 1] as Token).end));
  return parts.join('');
}
