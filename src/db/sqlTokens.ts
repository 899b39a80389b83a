/**
 * A small SQL lexer that understands what can hide a keyword or a semicolon: quoted strings, quoted
 * identifiers and comments. It yields upper-cased words and single punctuation characters.
 */
export type SqlToken = { kind: 'word' | 'punct' | 'literal'; text: string };

const WORD = /[A-Za-z_][A-Za-z0-9_$]*/y;
const NUMBER = /[0-9][0-9A-Za-z_.]*/y;

/** Returns the index just past the closing `quote` (doubled quotes escape it), or -1 when unterminated. */
function skipQuoted(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return -1;
}

export class UnreadableSql extends Error {}

export function tokenize(sql: string): SqlToken[] {
  const tokens: SqlToken[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i] as string;
    const next = sql[i + 1];
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
    } else if (ch === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end === -1) throw new UnreadableSql('unterminated comment');
      i = end + 2;
    } else if (ch === "'" || ch === '"' || ch === '`') {
      const end = skipQuoted(sql, i, ch);
      if (end === -1) throw new UnreadableSql('unterminated quoted text');
      tokens.push({ kind: 'literal', text: sql.slice(i, end) });
      i = end;
    } else if (ch === '[') {
      const end = sql.indexOf(']', i);
      if (end === -1) throw new UnreadableSql('unterminated [identifier]');
      tokens.push({ kind: 'literal', text: sql.slice(i, end + 1) });
      i = end + 1;
    } else {
      WORD.lastIndex = i;
      NUMBER.lastIndex = i;
      const word = WORD.exec(sql) ?? NUMBER.exec(sql);
      if (word) {
        tokens.push({ kind: 'word', text: word[0].toUpperCase() });
        i += word[0].length;
      } else {
        tokens.push({ kind: 'punct', text: ch });
        i++;
      }
    }
  }
  return tokens;
}

/** Splits a token stream into statements on top-level semicolons, dropping empty ones. */
export function splitStatements(tokens: SqlToken[]): SqlToken[][] {
  const statements: SqlToken[][] = [[]];
  for (const token of tokens) {
    if (token.kind === 'punct' && token.text === ';') statements.push([]);
    else statements.at(-1)?.push(token);
  }
  return statements.filter((s) => s.length > 0);
}
