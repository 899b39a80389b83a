import type { Engine } from '../core/shared/engineNames.js';
import { nameAsWritten, type SpannedToken, tokenSpans } from './tokens.js';

/** Parts of CREATE statements, for engines whose catalog keeps an index or a view only as its statement. */

const isPunct = (token: SpannedToken | undefined, text: string) => token?.kind === 'punct' && token.text === text;
const isWord = (token: SpannedToken | undefined, text: string) => token?.kind === 'word' && token.text === text;
/** When a trigger fires, as its CREATE TRIGGER says. */
export type TriggerTiming = 'BEFORE' | 'AFTER' | 'INSTEAD OF';

/** The events a CREATE TRIGGER's header names that every engine has. */
type HeaderEvent = 'INSERT' | 'UPDATE' | 'DELETE';

const TRIGGER_TIMINGS = new Set(['BEFORE', 'AFTER']);
const TRIGGER_EVENTS = new Set<string>(['INSERT', 'UPDATE', 'DELETE']);
const withoutSemicolon = (text: string) => text.trim().replace(/;$/, '').trimEnd();

/** A CREATE INDEX's key parts as written (its first parenthesised list, split at top-level commas), and the text after its WHERE. */
export function indexDefinitionParts(sql: string, engine: Engine): { parts: string[]; predicate: string | null } {
  const tokens = tokenSpans(sql, engine);
  const open = tokens.findIndex((t) => isPunct(t, '('));
  if (open === -1) return { parts: [], predicate: null };
  const parts: string[] = [];
  let depth = 0;
  let partStart = open + 1;
  let i = open;
  for (; i < tokens.length; i++) {
    const token = tokens[i] as SpannedToken;
    if (isPunct(token, '(')) depth++;
    else if (isPunct(token, ')')) depth--;
    if ((depth === 1 && isPunct(token, ',')) || depth === 0) {
      parts.push(sql.slice((tokens[partStart] as SpannedToken).start, (tokens[i - 1] as SpannedToken).end));
      partStart = i + 1;
      if (depth === 0) break;
    }
  }
  const where = tokens[i + 1];
  return { parts, predicate: isWord(where, 'WHERE') ? withoutSemicolon(sql.slice((where as SpannedToken).end)) : null };
}

const ORDERS = new Set(['ASC', 'DESC']);

/** The column a key part names (`"name"`, `title DESC`), unquoted; an expression's part as written. */
export function keyPartColumn(part: string, engine: Engine): string {
  const tokens = tokenSpans(part, engine);
  const column = nameAsWritten(part, tokens[0]);
  const rest = tokens.slice(1);
  return column !== undefined && (rest.length === 0 || (rest.length === 1 && ORDERS.has(rest[0]?.text ?? ''))) ? column : part;
}

/** A CREATE VIEW's query: the text after its first top-level AS. */
export function viewQuery(sql: string, engine: Engine): string {
  let depth = 0;
  for (const token of tokenSpans(sql, engine)) {
    if (isPunct(token, '(')) depth++;
    else if (isPunct(token, ')')) depth--;
    else if (depth === 0 && isWord(token, 'AS')) return withoutSemicolon(sql.slice(token.end));
  }
  return withoutSemicolon(sql);
}

/** A CREATE TRIGGER's timing (BEFORE when it names none, as SQLite reads it) and event, read past its name. */
export function triggerHeader(sql: string, engine: Engine): { timing: TriggerTiming; events: HeaderEvent[] } {
  const tokens = tokenSpans(sql, engine);
  let i = tokens.findIndex((t) => isWord(t, 'TRIGGER')) + 1;
  if (isWord(tokens[i], 'IF')) i += 3;
  i += isPunct(tokens[i + 1], '.') ? 3 : 1;
  let timing: TriggerTiming = 'BEFORE';
  const word = tokens[i]?.text ?? '';
  if (TRIGGER_TIMINGS.has(word)) [timing, i] = [word as TriggerTiming, i + 1];
  else if (word === 'INSTEAD') [timing, i] = ['INSTEAD OF', i + 2];
  const event = tokens[i]?.text ?? '';
  return { timing, events: TRIGGER_EVENTS.has(event) ? [event as HeaderEvent] : [] };
}
