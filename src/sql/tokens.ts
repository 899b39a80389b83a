import type { Engine } from '../core/shared/engineNames.js';

/**
 * A small SQL lexer, one dialect per engine, that understands what can hide a keyword or a semicolon:
 * strings, quoted identifiers, comments, PostgreSQL dollar quotes and MySQL executable comments (whose
 * content is code). It yields upper-cased words, quoted identifiers (their upper-cased name), string
 * literals and single punctuation characters. Text that an engine, or a server setting, could read
 * another way is `UnreadableSql`: never a guess.
 */
export type SqlToken = { kind: 'word' | 'quoted' | 'literal' | 'punct'; text: string };

export class UnreadableSql extends Error {}

/** How a backslash inside quotes reads: as itself, as an escape, or either (a server setting decides). */
type Backslash = 'itself' | 'escape' | 'either';

const SPACE = /[ \t\n\r\f\v]/;
// Every engine reads a non-ASCII character as part of an identifier.
const WORD = /[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*/y;
const NUMBER = /[0-9][0-9A-Za-z_.]*/y;
// PostgreSQL 14 and older end a number before a letter: `1e'…'` is 1, then an E'…' string.
const POSTGRES_NUMBER = /[0-9](?:_?[0-9])*(?:\.[0-9]*)?(?:[Ee][-+]?[0-9]+)?/y;
const DOLLAR_QUOTE = /\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;
const UNICODE_QUOTE = /[Uu]&['"]/y;
const ESCAPE_STRING = /[Ee]'/y;
// SQLite reads a `$name(` parameter up to the next space or `)`, quotes and semicolons included.
const SQLITE_TCL_PARAMETER = /[$@:#](?:[A-Za-z0-9_$\u0080-\uffff]|::)+\(/y;
// MySQL and MariaDB run `/*! … */` and `/*M! … */`, with or without version digits, as code.
const EXECUTABLE_COMMENT = /\/\*[Mm]?!\d*/y;
const LINE_END: Record<Engine, RegExp> = { sqlite: /\n/g, postgres: /[\n\r]/g, mysql: /\n/g, duckdb: /[\n\r]/g };

/** The text `pattern` matches at `at`, if any. */
function matchAt(pattern: RegExp, sql: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(sql)?.[0];
}

/** Returns the index just past the closing `quote` (doubled quotes escape it); throws when there is none. */
function quotedEnd(sql: string, start: number, quote: string, backslash: Backslash): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === '\\' && backslash !== 'itself') {
      // Escaped or not (NO_BACKSLASH_ESCAPES, standard_conforming_strings), `\'` ends elsewhere.
      if (backslash === 'either' && sql[i + 1] === quote)
        throw new UnreadableSql('a backslash before a quote reads differently under other server settings');
      i += 2;
    } else if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  throw new UnreadableSql('unterminated quoted text');
}

/** Where the comment starting at `at` ends, or -1 when none starts there. */
function commentEnd(sql: string, at: number, engine: Engine): number {
  if (sql.startsWith('/*', at)) return blockCommentEnd(sql, at, engine);
  const afterDashes = sql.charCodeAt(at + 2);
  const lineComment =
    engine === 'mysql'
      ? // MySQL's `--` needs a space or control character after it (or the end): `1--1` is 1 - -1.
        sql[at] === '#' || (sql.startsWith('--', at) && !(afterDashes > 0x20 && afterDashes !== 0x7f))
      : sql.startsWith('--', at);
  if (!lineComment) return -1;
  const newline = LINE_END[engine];
  newline.lastIndex = at;
  return newline.exec(sql) ? newline.lastIndex : sql.length;
}

/** PostgreSQL nests block comments; SQLite and MySQL end them at the first `*\/`. */
function blockCommentEnd(sql: string, at: number, engine: Engine): number {
  let depth = 0;
  let i = at;
  while (i < sql.length) {
    if (sql.startsWith('/*', i) && (depth === 0 || engine === 'postgres')) {
      depth++;
      i += 2;
    } else if (sql.startsWith('*/', i)) {
      depth--;
      i += 2;
      if (depth > 0) continue;
      // MySQL reads quotes inside an optimizer hint, so a `*/` in one would not end it there.
      if (engine === 'mysql' && sql[at + 2] === '+' && /['"`]/.test(sql.slice(at, i)))
        throw new UnreadableSql('quotes inside a MySQL optimizer hint');
      return i;
    } else i++;
  }
  throw new UnreadableSql('unterminated comment');
}

/** Reads the string, quoted name, word or punctuation at `at` into `tokens`; returns where it ends. */
function readToken(sql: string, at: number, engine: Engine, tokens: SqlToken[]): number {
  const ch = sql[at] as string;
  const literal = (end: number) => {
    tokens.push({ kind: 'literal', text: sql.slice(at, end) });
    return end;
  };
  const quoted = (end: number) => {
    const name = sql.slice(at + 1, end - 1).replaceAll(ch + ch, ch);
    tokens.push({ kind: 'quoted', text: name.toUpperCase() });
    return end;
  };
  if (engine === 'postgres') {
    // `U&"\0070g_read_file"` names a function without spelling it.
    if (matchAt(UNICODE_QUOTE, sql, at)) throw new UnreadableSql('Unicode escapes in quotes');
    if (matchAt(ESCAPE_STRING, sql, at)) return literal(quotedEnd(sql, at + 1, "'", 'escape'));
    const tag = matchAt(DOLLAR_QUOTE, sql, at);
    if (tag !== undefined) {
      const close = sql.indexOf(tag, at + tag.length);
      if (close === -1) throw new UnreadableSql('unterminated dollar-quoted string');
      return literal(close + tag.length);
    }
    if (ch === '"') return quoted(quotedEnd(sql, at, ch, 'itself'));
  }
  if (engine === 'sqlite') {
    if (matchAt(SQLITE_TCL_PARAMETER, sql, at)) throw new UnreadableSql('a parameter name followed by (');
    if (ch === '"' || ch === '`') return quoted(quotedEnd(sql, at, ch, 'itself'));
    if (ch === '[') {
      const close = sql.indexOf(']', at);
      if (close === -1) throw new UnreadableSql('unterminated [identifier]');
      tokens.push({ kind: 'quoted', text: sql.slice(at + 1, close).toUpperCase() });
      return close + 1;
    }
  }
  if (engine === 'mysql') {
    // A string, or an identifier under ANSI_QUOTES: either way it may name a function.
    if (ch === '"') return quoted(quotedEnd(sql, at, ch, 'either'));
    if (ch === '`') return quoted(quotedEnd(sql, at, ch, 'itself'));
  }
  if (ch === "'") return literal(quotedEnd(sql, at, ch, engine === 'sqlite' ? 'itself' : 'either'));
  const word = matchAt(WORD, sql, at) ?? matchAt(engine === 'postgres' ? POSTGRES_NUMBER : NUMBER, sql, at);
  tokens.push(word ? { kind: 'word', text: word.toUpperCase() } : { kind: 'punct', text: ch });
  return at + (word?.length ?? 1);
}

/** A token and where it was written: `sql.slice(start, end)`. */
export type SpannedToken = SqlToken & { start: number; end: number };

/** A name token as written in `sql`, unquoted (doubled quotes made single); undefined for any other token. */
export function nameAsWritten(sql: string, token: SpannedToken | undefined): string | undefined {
  if (token?.kind === 'word') return sql.slice(token.start, token.end);
  if (token?.kind !== 'quoted') return undefined;
  const raw = sql.slice(token.start, token.end);
  const close = raw.at(-1) ?? '';
  return raw.slice(1, -1).replaceAll(close + close, close);
}

export function tokenize(sql: string, engine: Engine): SqlToken[] {
  return scan(sql, engine, false);
}

/** The tokens with where each was written, for code that must cut the statement's own text. */
export function tokenSpans(sql: string, engine: Engine): SpannedToken[] {
  return scan(sql, engine, true) as SpannedToken[];
}

function scan(sql: string, engine: Engine, withSpans: boolean): SqlToken[] {
  // DuckDB's parser is PostgreSQL's: quotes, dollar quotes and nested comments read the same.
  if (engine === 'duckdb') return scan(sql, 'postgres', withSpans);
  if (sql.includes('\0')) throw new UnreadableSql('a NUL character');
  const tokens: SqlToken[] = [];
  // MySQL: where the open executable comment closes, -1 outside one.
  let executableEnd = -1;
  let i = 0;
  while (i < sql.length) {
    const code = engine === 'mysql' ? matchAt(EXECUTABLE_COMMENT, sql, i) : undefined;
    const afterComment = code === undefined ? commentEnd(sql, i, engine) : -1;
    if (SPACE.test(sql[i] as string)) {
      i++;
    } else if (code !== undefined || afterComment !== -1) {
      // Servers disagree on where a comment inside an executable comment would end.
      if (executableEnd !== -1) throw new UnreadableSql('a comment inside a MySQL executable comment');
      if (code !== undefined) {
        executableEnd = sql.indexOf('*/', i + code.length);
        if (executableEnd === -1) throw new UnreadableSql('unterminated comment');
      }
      i = code !== undefined ? i + code.length : afterComment;
    } else if (executableEnd !== -1 && sql.startsWith('*/', i)) {
      // A server older than the version digits skips the content as a comment: to its first `*/`.
      if (i !== executableEnd) throw new UnreadableSql('a quote across the end of an executable comment');
      executableEnd = -1;
      i += 2;
    } else {
      const start = i;
      i = readToken(sql, i, engine, tokens);
      if (withSpans) Object.assign(tokens[tokens.length - 1] as SqlToken, { start, end: i });
    }
  }
  if (executableEnd !== -1) throw new UnreadableSql('unterminated comment');
  return tokens;
}

export const isWord = (token: SqlToken | undefined, words: ReadonlySet<string> | string) =>
  token?.kind === 'word' && (typeof words === 'string' ? token.text === words : words.has(token.text));
export const isPunct = (token: SqlToken | undefined, text: string) => token?.kind === 'punct' && token.text === text;
/** A name as SQL writes one: a word (keywords included: `update` may name a column) or a quoted identifier. */
export const isName = (token: SqlToken | undefined) => token?.kind === 'word' || token?.kind === 'quoted';

/** The index just past the `)` that closes the `(` at `open`, or undefined when it is never closed. */
export function pastParentheses(tokens: SqlToken[], open: number): number | undefined {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (isPunct(tokens[i], '(')) depth++;
    else if (isPunct(tokens[i], ')') && --depth === 0) return i + 1;
  }
  return undefined;
}

/** How a statement marks its bound values: `$1`, `$2` (numbered) or `?` in order (positional). */
export type PlaceholderStyle = 'numbered' | 'positional';

/** The placeholders `sql` is written with: numbered when it has a `$` touching a number, else positional. */
export function placeholderStyle(sql: string, engine: Engine): PlaceholderStyle {
  let tokens: SpannedToken[];
  try {
    tokens = tokenSpans(sql, engine);
  } catch (error) {
    if (error instanceof UnreadableSql) return 'positional';
    throw error;
  }
  const numbered = tokens.some((t, i) => t.kind === 'punct' && t.text === '$' && tokens[i + 1]?.start === t.end && /^[0-9]+$/.test(tokens[i + 1]?.text ?? ''));
  return numbered ? 'numbered' : 'positional';
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
