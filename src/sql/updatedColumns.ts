import type { Engine } from '../core/shared/engineNames.js';
import { isPunct, isWord, nameAsWritten, type SpannedToken, splitStatements, tokenSpans, UnreadableSql } from './tokens.js';

/** A column an UPDATE assigns: its name unquoted, and whether it was quoted (then its case counts). */
export type AssignedColumn = { name: string; quoted: boolean };

/** Words that end a SET list at its own level. */
const AFTER_SET = new Set(['WHERE', 'FROM', 'RETURNING', 'ORDER', 'LIMIT']);

/** `name` or `qualifier.name` at `at`: the column (the last name) and where it ends; undefined for anything else. */
function columnAt(sql: string, tokens: SpannedToken[], at: number): { column: AssignedColumn; end: number } | undefined {
  let end = at;
  while (isPunct(tokens[end + 1], '.')) end += 2;
  const token = tokens[end];
  // The lexer reads a number as a word: never a column's name.
  const name = token?.kind === 'word' && /^[0-9]/.test(token.text) ? undefined : nameAsWritten(sql, token);
  return name === undefined ? undefined : { column: { name, quoted: token?.kind === 'quoted' }, end: end + 1 };
}

/** The columns of `(a, b, …)` at `at`, and the index past its `)`; undefined for anything else. */
function tupleAt(sql: string, tokens: SpannedToken[], at: number): { columns: AssignedColumn[]; end: number } | undefined {
  const columns: AssignedColumn[] = [];
  let i = at + 1;
  for (;;) {
    const one = columnAt(sql, tokens, i);
    if (!one) return undefined;
    columns.push(one.column);
    i = one.end;
    if (isPunct(tokens[i], ')')) return { columns, end: i + 1 };
    if (!isPunct(tokens[i], ',')) return undefined;
    i++;
  }
}

function oneAt(sql: string, tokens: SpannedToken[], at: number): { columns: AssignedColumn[]; end: number } | undefined {
  const one = columnAt(sql, tokens, at);
  return one && { columns: [one.column], end: one.end };
}

/** The index past the assigned value starting at `at`: at the next `,` or ending word of the SET list's own level. */
function valueEnd(tokens: SpannedToken[], at: number): number {
  let depth = 0;
  let i = at;
  for (; i < tokens.length; i++) {
    const token = tokens[i];
    if (isPunct(token, '(')) depth++;
    else if (isPunct(token, ')')) depth--;
    else if (depth === 0 && (isPunct(token, ',') || isWord(token, AFTER_SET))) break;
  }
  return i;
}

/**
 * The columns an `UPDATE … SET` assigns (`a = …`, `t.a = …`, `(a, b) = …`), in order; undefined when
 * the statement is not an UPDATE whose SET list reads plainly (then nobody can say which it changes).
 */
export function assignedColumns(sql: string, engine: Engine): AssignedColumn[] | undefined {
  let tokens: SpannedToken[];
  try {
    [tokens = []] = splitStatements(tokenSpans(sql, engine)) as SpannedToken[][];
  } catch (error) {
    if (error instanceof UnreadableSql) return undefined;
    throw error;
  }
  if (!isWord(tokens[0], 'UPDATE')) return undefined;
  let at = tokens.findIndex((token) => isWord(token, 'SET'));
  if (at === -1) return undefined;
  const columns: AssignedColumn[] = [];
  for (at++; ; at++) {
    const assigned = isPunct(tokens[at], '(') ? tupleAt(sql, tokens, at) : oneAt(sql, tokens, at);
    if (!assigned || !isPunct(tokens[assigned.end], '=')) return undefined;
    columns.push(...assigned.columns);
    at = valueEnd(tokens, assigned.end + 1);
    if (!isPunct(tokens[at], ',')) return columns;
  }
}

/** Whether `column` names `key` as the engine reads names: a quoted name exactly, a bare one in any case. */
export const namesColumn = (column: AssignedColumn, key: string) => (column.quoted ? column.name === key : column.name.toLowerCase() === key.toLowerCase());
