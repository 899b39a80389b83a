import type { Engine } from '../core/shared/engineNames.js';
import { splitStatements, type SpannedToken, type SqlToken, tokenize, tokenSpans } from './tokens.js';

/**
 * The rows an UPDATE or DELETE would change, as a read of its own table and condition:
 * `SELECT <what> FROM <target> [WHERE <condition>]`, with the condition's bound values. The target and
 * condition are the statement's own text, cut where the engine's grammar puts them.
 */
export type RowSelection = { target: string; condition: string | undefined; params: unknown[] };

/** Why the rows cannot be selected without risking another meaning. */
export type NotSelectable = { refused: string };

export const selectRows = (selection: RowSelection, what: string) =>
  `SELECT ${what} FROM ${selection.target}${selection.condition === undefined ? '' : ` WHERE ${selection.condition}`}`;

/** Words that end a target's name where an alias would be: the statement goes on in a way not previewed. */
const NOT_ALIASES = new Set([
  'SET', 'WHERE', 'RETURNING', 'USING', 'JOIN', 'INNER', 'LEFT', 'RIGHT', 'CROSS', 'NATURAL', 'STRAIGHT_JOIN',
  'ORDER', 'LIMIT', 'INDEXED', 'NOT', 'PARTITION', 'FROM', 'ON', 'AS', 'OR', 'ONLY', 'LOW_PRIORITY', 'QUICK', 'IGNORE',
]);
/** At the statement's own level these make the changed rows differ from the condition's (`LIMIT`), or join other tables. */
const REFUSED_AT_TOP = new Set(['ORDER', 'LIMIT', 'FROM', 'JOIN', 'USING']);

const isWord = (token: SqlToken | undefined, text: string) => token?.kind === 'word' && token.text === text;
const isPunct = (token: SqlToken | undefined, text: string) => token?.kind === 'punct' && token.text === text;
const isName = (token: SqlToken | undefined) =>
  token !== undefined && (token.kind === 'quoted' || (token.kind === 'word' && !NOT_ALIASES.has(token.text) && !/^[0-9]/.test(token.text)));

/** DuckDB takes numbered placeholders (`$1`, as PostgreSQL) besides `?`; SQLite and MySQL take `?` in order. */
const NUMBERED_PLACEHOLDERS: ReadonlySet<Engine> = new Set(['duckdb']);

/** At `i`, a `$n` placeholder: the `$` and, touching it, its number. */
const numberAt = (tokens: SpannedToken[], i: number): number | undefined => {
  const next = tokens[i + 1];
  return isPunct(tokens[i], '$') && next?.start === tokens[i]?.end && /^[0-9]+$/.test(next?.text ?? '') ? Number(next?.text) : undefined;
};

/**
 * The condition's own text and values, its `$n` placeholders renumbered from 1 in the order they are
 * first used; undefined when one names a value that was not given.
 */
function numberedCondition(sql: string, condition: SpannedToken[], params: unknown[]): { text: string; texts: string[]; params: unknown[] } | undefined {
  const order = new Map<number, number>();
  const texts = condition.map((t) => t.text);
  let text = '';
  let from = condition[0]?.start ?? 0;
  for (let i = 0; i < condition.length; i++) {
    const n = numberAt(condition, i);
    if (n === undefined) continue;
    if (n < 1 || n > params.length) return undefined;
    if (!order.has(n)) order.set(n, order.size + 1);
    const digits = condition[i + 1] as SpannedToken;
    text += `${sql.slice(from, digits.start)}${order.get(n)}`;
    texts[i + 1] = String(order.get(n));
    from = digits.end;
  }
  text += sql.slice(from, condition.at(-1)?.end);
  return { text, texts, params: [...order.keys()].map((n) => params[n - 1]) };
}

/**
 * SQLite, MySQL and DuckDB: a conservative reading of `UPDATE t [[AS] a] SET … [WHERE …] [RETURNING …]`
 * and `DELETE FROM t [[AS] a] [WHERE …] [RETURNING …]`, refusing anything else (WITH, joins, several
 * tables, ORDER BY or LIMIT, named placeholders, numbered ones where the engine takes `?` in order, user
 * variables). The SELECT it makes is read back by the same lexer and must give exactly the statement's
 * own tokens (its placeholders renumbered).
 */
export function tokenRowSelection(sql: string, engine: Exclude<Engine, 'postgres'>, params: unknown[]): RowSelection | NotSelectable {
  const [tokens = []] = splitStatements(tokenSpans(sql, engine)) as SpannedToken[][];
  const numbered = NUMBERED_PLACEHOLDERS.has(engine) && tokens.some((_, i) => numberAt(tokens, i) !== undefined);
  const verb = tokens[0]?.text;
  let at = verb === 'DELETE' && isWord(tokens[1], 'FROM') ? 2 : verb === 'UPDATE' ? 1 : -1;
  if (at === -1) return { refused: `only a single-table ${verb === 'DELETE' ? 'DELETE FROM' : 'UPDATE or DELETE'} is previewed` };
  const targetStart = at;
  if (!isName(tokens[at])) return { refused: 'the target is not one plain table' };
  at++;
  if (isPunct(tokens[at], '.') && isName(tokens[at + 1])) at += 2;
  if (isWord(tokens[at], 'AS') && isName(tokens[at + 1])) at += 2;
  else if (isName(tokens[at])) at++;
  const target = tokens.slice(targetStart, at);
  const next = tokens[at];
  const expected = verb === 'UPDATE' ? isWord(next, 'SET') : next === undefined || isWord(next, 'WHERE') || isWord(next, 'RETURNING');
  if (!expected) return { refused: 'the target is not one plain table' };

  let depth = 0;
  let where = -1;
  let end = tokens.length;
  for (let i = at; i < tokens.length; i++) {
    const token = tokens[i] as SpannedToken;
    if (numbered && numberAt(tokens, i) !== undefined) {
      i++;
      continue;
    }
    if (token.kind === 'punct' && [':', '@', '$'].includes(token.text)) return { refused: 'named placeholders and variables are not previewed' };
    if (isPunct(token, '?') && /^[0-9]/.test(tokens[i + 1]?.text ?? '') && tokens[i + 1]?.start === token.end) {
      return { refused: 'numbered placeholders are not previewed' };
    }
    if (isPunct(token, '(')) depth++;
    else if (isPunct(token, ')')) depth--;
    else if (depth === 0 && token.kind === 'word') {
      if (REFUSED_AT_TOP.has(token.text) || (token.text === 'WHERE' && where !== -1)) return { refused: `${token.text} is not previewed` };
      if (token.text === 'WHERE') where = i;
      if (token.text === 'RETURNING') {
        end = i;
        break;
      }
    }
  }
  if (where !== -1 && where + 1 >= end) return { refused: 'the WHERE is empty' };
  const condition = where === -1 ? [] : tokens.slice(where + 1, end);
  const cut = numbered ? numberedCut(sql, tokens, condition, params) : orderedCut(sql, tokens, condition, params, where, end);
  if ('refused' in cut) return cut;
  return readBack(sql, cut.selection, engine, target, cut.texts);
}

type Cut = { selection: Omit<RowSelection, 'target'>; texts: string[] } | NotSelectable;

/** `?` placeholders: the condition's values are those of its own `?`s, in order. */
function orderedCut(sql: string, tokens: SpannedToken[], condition: SpannedToken[], params: unknown[], where: number, end: number): Cut {
  const placeholders = (from: number, to: number) => tokens.slice(from, to).filter((t) => isPunct(t, '?')).length;
  if (placeholders(0, tokens.length) !== params.length) return { refused: 'the values do not match the placeholders' };
  const text = condition.length === 0 ? undefined : sql.slice(condition[0]?.start, condition.at(-1)?.end);
  const selection = { condition: text, params: where === -1 ? [] : params.slice(placeholders(0, where), placeholders(0, end)) };
  return { selection, texts: condition.map((t) => t.text) };
}

/** `$n` placeholders: the condition's, renumbered, with the values they name. */
function numberedCut(sql: string, tokens: SpannedToken[], condition: SpannedToken[], params: unknown[]): Cut {
  if (tokens.some((t) => isPunct(t, '?'))) return { refused: 'the values do not match the placeholders' };
  if (condition.length === 0) return { selection: { condition: undefined, params: [] }, texts: [] };
  const numbered = numberedCondition(sql, condition, params);
  if (!numbered) return { refused: 'the values do not match the placeholders' };
  return { selection: { condition: numbered.text, params: numbered.params }, texts: numbered.texts };
}

/** The selection of `target` with the cut condition, once the SELECT it makes reads back as the statement's own tokens. */
function readBack(sql: string, cut: Omit<RowSelection, 'target'>, engine: Engine, target: SpannedToken[], conditionTexts: string[]): RowSelection | NotSelectable {
  const selection: RowSelection = { target: sql.slice(target[0]?.start, target.at(-1)?.end), ...cut };
  // Read back: the cut must not have split a comment or a quote (MySQL's executable comments included).
  const where = cut.condition === undefined ? [] : ['WHERE', ...conditionTexts];
  const same = ['SELECT', 'COUNT', '(', '*', ')', 'FROM', ...target.map((t) => t.text), ...where];
  try {
    const read = tokenize(selectRows(selection, 'count(*)'), engine).map((t) => t.text);
    if (read.length === same.length && read.every((text, i) => text === same[i])) return selection;
  } catch {
    // Unreadable once cut: refused below.
  }
  return { refused: 'the statement cannot be cut without changing its meaning' };
}
