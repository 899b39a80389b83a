import type { Engine } from '../core/shared/engineNames.js';
import { SQL_DIALECTS } from './dialects.js';
import { SqlRefusal } from './sqlRefusal.js';
import { type SpannedToken, tokenSpans, UnreadableSql } from './tokens.js';

/** A parameter's name as a custom tool's statement writes it after the colon. */
const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A statement written with named placeholders (`:order_id`), as the engine takes it: `sql` with each one
 * replaced by the engine's own (`?` in order on SQLite and MySQL, `$1`, `$2`… on PostgreSQL and DuckDB)
 * and `order`, the parameter whose value each bound position takes. A name used twice is bound twice
 * with `?`, once with `$n`.
 */
export type BoundStatement = { sql: string; order: string[] };

/** At `i`, a named placeholder: a `:` touching a name, not part of a `::` cast. */
function nameAt(sql: string, tokens: SpannedToken[], i: number): string | undefined {
  const colon = tokens[i];
  const name = tokens[i + 1];
  if (colon?.kind !== 'punct' || colon.text !== ':' || name?.kind !== 'word' || name.start !== colon.end) return undefined;
  const before = tokens[i - 1];
  if (before?.kind === 'punct' && before.text === ':' && before.end === colon.start) return undefined;
  const written = sql.slice(name.start, name.end);
  return PARAMETER_NAME.test(written) ? written : undefined;
}

/**
 * Replaces the named placeholders of `sql` with `engine`'s, read with Sluice's lexer so that a colon in a
 * string, a quoted name or a comment is left alone. Text the lexer cannot read is `invalid_argument`.
 */
export function bindNamedPlaceholders(sql: string, engine: Engine): BoundStatement {
  let tokens: SpannedToken[];
  try {
    tokens = tokenSpans(sql, engine);
  } catch (error) {
    if (error instanceof UnreadableSql) throw new SqlRefusal('invalid_argument', `the SQL cannot be read: ${error.message}`);
    throw error;
  }
  const { placeholder } = SQL_DIALECTS[engine];
  // `?` engines bind every occurrence in order; numbered ones bind each name once, numbered as first met.
  const positional = placeholder(1) === placeholder(2);
  const order: string[] = [];
  let out = '';
  let copied = 0;
  for (let i = 0; i < tokens.length; i++) {
    const name = nameAt(sql, tokens, i);
    if (name === undefined) continue;
    let position = positional ? -1 : order.indexOf(name);
    if (position === -1) position = order.push(name) - 1;
    out += sql.slice(copied, (tokens[i] as SpannedToken).start) + placeholder(position + 1);
    copied = (tokens[i + 1] as SpannedToken).end;
    i++;
  }
  return { sql: out + sql.slice(copied), order };
}
