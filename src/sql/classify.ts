import { SqlRefusal } from './sqlRefusal.js';
import type { Engine } from '../core/shared/engineNames.js';
import { explainRuns } from './explainRuns.js';
import { sqlitePragma } from './sqlitePragmas.js';
import { statementStarts } from './statementStarts.js';
import { isPunct, isWord, pastParentheses, type SqlToken, splitStatements, tokenize, UnreadableSql } from './tokens.js';

export type StatementKind = 'read' | 'write' | 'ddl' | 'destructive';

/** `reason` says why it is of that kind, as the confirmation dialog shows it (`DELETE without WHERE`). */
export type ClassifiedStatement = { kind: StatementKind; verb: string; reason: string };

/**
 * Statements (by their leading words, see `lead`), phrases and functions that reach the file system,
 * run server-side code or reach other servers: refused on every tool. A function matches by name, or
 * by prefix where the entry ends in `*`.
 */
const DENIED_STATEMENTS: Record<Engine, string[]> = {
  sqlite: ['ATTACH', 'DETACH', 'VACUUM', 'LOAD', 'COPY'],
  postgres: [
    'COPY',
    'LOAD',
    'DO',
    'IMPORT',
    'ALTER SYSTEM',
    'CREATE EXTENSION',
    'ALTER EXTENSION',
    'CREATE LANGUAGE',
    'CREATE SERVER',
    'CREATE FOREIGN DATA WRAPPER',
    'CREATE SUBSCRIPTION',
    'ALTER SUBSCRIPTION',
  ],
  mysql: [
    'LOAD',
    'INSTALL',
    'UNINSTALL',
    'SHUTDOWN',
    'RESTART',
    'KILL',
    'PURGE',
    'CHANGE',
    'RESET',
    'CLONE',
    'BINLOG',
    'IMPORT',
    'CREATE SERVER',
    'START SLAVE',
    'START REPLICA',
    'START GROUP_REPLICATION',
    'STOP',
  ],
  // Files are read only through read_csv/read_parquet/… inside the connection's files directory (the
  // engine's own allowed_directories); these attach, export, copy or install and load code.
  duckdb: ['ATTACH', 'DETACH', 'COPY', 'EXPORT', 'IMPORT', 'INSTALL', 'FORCE INSTALL', 'LOAD', 'CREATE SECRET', 'CREATE PERSISTENT SECRET', 'DROP SECRET'],
};
const DENIED_PHRASES: Record<Engine, string[]> = {
  sqlite: [],
  postgres: [],
  mysql: ['INTO OUTFILE', 'INTO DUMPFILE', 'SONAME', 'DATA DIRECTORY', 'INDEX DIRECTORY'],
  duckdb: [],
};
const DENIED_FUNCTIONS: Record<Engine, string[]> = {
  sqlite: ['LOAD_EXTENSION', 'READFILE', 'WRITEFILE', 'EDIT', 'FTS3_TOKENIZER'],
  postgres: [
    'PG_READ_FILE',
    'PG_READ_BINARY_FILE',
    'PG_LS_*',
    'PG_STAT_FILE',
    'PG_FILE_*',
    'PG_LOGDIR_LS',
    'LO_IMPORT',
    'LO_EXPORT',
    'DBLINK*',
    'PG_TERMINATE_BACKEND',
    'PG_CANCEL_BACKEND',
    'PG_RELOAD_CONF',
    'PG_ROTATE_LOGFILE',
    'PG_PROMOTE',
    'PG_SIGNAL_BACKEND',
    'PG_LOG_BACKEND_MEMORY_CONTEXTS',
    'PG_BACKUP_*',
    'PG_START_BACKUP',
    'PG_STOP_BACKUP',
    'PG_CREATE_RESTORE_POINT',
    'PG_WAL_REPLAY_*',
    'PG_REPLICATION_ORIGIN_*',
    'PG_IMPORT_SYSTEM_COLLATIONS',
    // These run SQL text, which this classifier never sees (tablefunc, xml2 and the core XML and
    // text-search functions).
    'QUERY_TO_XML*',
    'CURSOR_TO_XML*',
    'TS_STAT',
    'TS_REWRITE',
    'CROSSTAB*',
    'CONNECTBY*',
    'XPATH_TABLE',
  ],
  mysql: ['LOAD_FILE', 'SYS_EXEC', 'SYS_EVAL'],
  // query() and query_table() run SQL text this classifier never sees; getenv reads the environment.
  duckdb: ['QUERY', 'QUERY_TABLE', 'GETENV'],
};
/** PostgreSQL languages whose functions can reach the file system or the operating system. */
const UNTRUSTED_LANGUAGES = new Set([
  'C',
  'INTERNAL',
  'PLPYTHONU',
  'PLPYTHON2U',
  'PLPYTHON3U',
  'PLPERLU',
  'PLTCLU',
  'PLSH',
  'PLLUAU',
  'PLR',
  'JAVAU',
]);

/** Transaction control and session state are Sluice's: each call runs one self-contained statement. */
const TRANSACTION_CONTROL = [
  'BEGIN',
  'COMMIT',
  'END',
  'ROLLBACK',
  'SAVEPOINT',
  'RELEASE',
  'START',
  'ABORT',
  'XA',
  'SET TRANSACTION',
];
const SESSION_STATEMENTS: Record<Engine, string[]> = {
  sqlite: [],
  postgres: [
    'SET',
    'RESET',
    'DISCARD',
    'PREPARE',
    'EXECUTE',
    'DEALLOCATE',
    'LISTEN',
    'UNLISTEN',
    'DECLARE',
    'FETCH',
    'MOVE',
    'CLOSE',
  ],
  mysql: ['SET', 'PREPARE', 'EXECUTE', 'DEALLOCATE', 'USE', 'LOCK', 'UNLOCK', 'HANDLER'],
  duckdb: ['SET', 'RESET', 'USE', 'PREPARE', 'EXECUTE', 'DEALLOCATE'],
};
const SESSION_FUNCTIONS: Record<Engine, string[]> = { sqlite: [], postgres: ['SET_CONFIG'], mysql: [], duckdb: [] };

const READ_VERBS: Record<Engine, Set<string>> = {
  sqlite: new Set(['SELECT', 'VALUES', 'WITH']),
  postgres: new Set(['SELECT', 'VALUES', 'WITH', 'TABLE', 'SHOW']),
  mysql: new Set(['SELECT', 'VALUES', 'WITH', 'TABLE', 'SHOW']),
  duckdb: new Set(['SELECT', 'VALUES', 'WITH', 'TABLE', 'FROM', 'SHOW', 'DESCRIBE', 'SUMMARIZE']),
};
const EXPLAIN_VERBS: Record<Engine, Set<string>> = {
  sqlite: new Set(['EXPLAIN']),
  postgres: new Set(['EXPLAIN']),
  mysql: new Set(['EXPLAIN', 'DESCRIBE', 'DESC']),
  duckdb: new Set(['EXPLAIN']),
};
const EXPLAIN_OPTIONS = new Set(['ANALYZE', 'ANALYSE', 'VERBOSE', 'QUERY', 'PLAN', 'EXTENDED', 'PARTITIONS']);
/** What MariaDB's `ANALYZE <statement>` runs (and reports on). */
const ANALYZED_VERBS = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'REPLACE', 'WITH']);
/** Verbs of statements that change data, as a statement (`REPLACE INTO`), not a function (`replace(`). */
const MODIFYING_VERBS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'REPLACE']);
/** What makes a read statement change something: row locks, and `SELECT … INTO` creating a table. */
const ROW_LOCKS = ['FOR UPDATE', 'FOR SHARE', 'FOR NO KEY UPDATE', 'FOR KEY SHARE', 'LOCK IN SHARE MODE'];
const WRITING_PHRASES: Record<Engine, string[]> = {
  sqlite: [],
  postgres: [...ROW_LOCKS, 'INTO'],
  mysql: [...ROW_LOCKS, 'NEXT VALUE FOR'],
  duckdb: [],
};
const WRITING_FUNCTIONS: Record<Engine, string[]> = {
  sqlite: [],
  postgres: [
    'NEXTVAL',
    'SETVAL',
    'PG_ADVISORY_*',
    'PG_TRY_ADVISORY_*',
    'PG_NOTIFY',
    'LO_CREATE',
    'LO_CREAT',
    'LO_UNLINK',
    'LO_PUT',
    'LO_FROM_BYTEA',
    'LO_TRUNCATE*',
    'LOWRITE',
    'TXID_CURRENT',
    'PG_CURRENT_XACT_ID',
    'PG_SWITCH_WAL',
    'PG_CREATE_*',
    'PG_DROP_REPLICATION_SLOT',
    'PG_LOGICAL_EMIT_MESSAGE',
    'PG_LOGICAL_SLOT_GET_*',
    'PG_STAT_RESET*',
  ],
  mysql: ['GET_LOCK', 'RELEASE_LOCK', 'RELEASE_ALL_LOCKS', 'NEXTVAL', 'SETVAL'],
  duckdb: ['NEXTVAL', 'SETVAL'],
};
const DDL_VERBS = new Set([
  'CREATE',
  'ALTER',
  'COMMENT',
  'RENAME',
  'REINDEX',
  'GRANT',
  'REVOKE',
  'CLUSTER',
  'REFRESH',
  'OPTIMIZE',
]);
const DESTRUCTIVE_VERBS = new Set(['DROP', 'TRUNCATE']);
const MODIFIERS = new Set(['OR', 'REPLACE', 'TRUSTED', 'PROCEDURAL']);
/** Whether the statement has these words one right after the other. */
const hasPhrase = (tokens: SqlToken[], phrase: string) => {
  const words = phrase.split(' ');
  return tokens.some((_, i) => words.every((word, j) => isWord(tokens[i + j], word)));
};

/** The leading words, modifiers dropped: `CREATE OR REPLACE TRUSTED LANGUAGE` leads `CREATE LANGUAGE`. */
function lead(tokens: SqlToken[]): string {
  const words: string[] = [];
  for (const token of tokens) {
    if (token.kind !== 'word') break;
    if (words.length === 0 || !MODIFIERS.has(token.text)) words.push(token.text);
  }
  return ` ${words.join(' ')} `;
}
const leadsWith = (tokens: SqlToken[], statements: string[]) =>
  statements.some((statement) => lead(tokens).startsWith(` ${statement} `));

/** The first listed function the statement calls: a name, plain or quoted, right before `(`. */
const calledFunction = (tokens: SqlToken[], functions: string[]) =>
  tokens.find(
    (token, i) =>
      (token.kind === 'word' || token.kind === 'quoted') &&
      isPunct(tokens[i + 1], '(') &&
      functions.some((f) => (f.endsWith('*') ? token.text.startsWith(f.slice(0, -1)) : token.text === f)),
  )?.text;
const calls = (tokens: SqlToken[], functions: string[]) => calledFunction(tokens, functions) !== undefined;

/** A language name as a word, a quoted identifier or a plain string; any other spelling is unread. */
function languageName(token: SqlToken | undefined): string | undefined {
  if (token?.kind === 'word' || token?.kind === 'quoted') return token.text;
  if (token?.kind === 'literal' && token.text.startsWith("'"))
    return token.text.slice(1, -1).replaceAll("''", "'").toUpperCase();
  return undefined;
}

/** A PostgreSQL function or procedure in an untrusted language, or in one this cannot read. */
function untrustedRoutine(tokens: SqlToken[]): boolean {
  if (!leadsWith(tokens, ['CREATE FUNCTION', 'CREATE PROCEDURE'])) return false;
  return tokens.some((token, i) => {
    if (!isWord(token, 'LANGUAGE')) return false;
    const name = languageName(tokens[i + 1]);
    return name === undefined || UNTRUSTED_LANGUAGES.has(name);
  });
}

/** Words a constant condition may hold besides literals, numbers and operators. */
const CONSTANT_WORDS = new Set(['TRUE', 'FALSE', 'NOT', 'AND', 'OR', 'IS', 'NULL']);
/** Words that end a DELETE's or UPDATE's WHERE condition at its own level. */
const AFTER_CONDITION = new Set(['RETURNING', 'ORDER', 'LIMIT']);
const NUMBER = /^[0-9.]/;

/** Whether a condition names nothing (no column, no function): it holds for every row or for none. */
const constantCondition = (tokens: SqlToken[]) =>
  tokens.every((t) => t.kind === 'literal' || t.kind === 'punct' || (t.kind === 'word' && (NUMBER.test(t.text) || CONSTANT_WORDS.has(t.text))));

/**
 * Why a DELETE, UPDATE or MERGE anywhere in the statement — at its head, after a CTE list, or
 * inside a CTE — changes every row, if one does: a DELETE or UPDATE with no WHERE of its own or a constant one
 * (`WHERE true`, `WHERE 1 = 1`), a MERGE joined `ON` a constant that deletes or updates. One counts
 * where it starts a statement (`statementStarts`; where that cannot be told, first or right after a
 * parenthesis), not as a name or in `ON DELETE`, `FOR UPDATE`, `ON DUPLICATE KEY UPDATE`, `THEN DELETE`.
 */
function changesEveryRow(tokens: SqlToken[]): string | undefined {
  const starts = statementStarts(tokens);
  for (const [at, token] of tokens.entries()) {
    const merge = isWord(token, 'MERGE');
    if (!merge && !isWord(token, 'DELETE') && !isWord(token, 'UPDATE')) continue;
    const before = tokens[at - 1];
    if (starts ? !starts(at) : at > 0 && !isPunct(before, '(') && !isPunct(before, ')')) continue;
    const own = ownLevel(tokens, at + 1);
    if (merge) {
      // MERGE … ON <constant> matches every row; it changes them all when it deletes or updates them.
      const on = clause(own, 'ON', new Set(['WHEN']));
      if (on !== undefined && constantCondition(on) && own.some((t, i) => isWord(t, 'THEN') && isWord(own[i + 1], new Set(['DELETE', 'UPDATE'])))) {
        return 'MERGE ON a constant condition';
      }
      continue;
    }
    const condition = clause(own, 'WHERE', AFTER_CONDITION);
    if (condition === undefined) return `${token.text} without WHERE`;
    if (constantCondition(condition)) return `${token.text} with a constant WHERE`;
  }
  return undefined;
}

/** The tokens from `from` to the end of the statement that starts there, with its own nesting depth (0 = its level). */
function ownLevel(tokens: SqlToken[], from: number): (SqlToken & { depth: number })[] {
  const own: (SqlToken & { depth: number })[] = [];
  let depth = 0;
  for (const token of tokens.slice(from)) {
    if (isPunct(token, ')') && depth === 0) break;
    if (isPunct(token, ')')) depth--;
    own.push({ ...token, depth });
    if (isPunct(token, '(')) depth++;
  }
  return own;
}

/** The tokens after `keyword` at the statement's own level, up to one of `until` at that level. */
function clause(own: (SqlToken & { depth: number })[], keyword: string, until: Set<string>): SqlToken[] | undefined {
  const start = own.findIndex((t) => t.depth === 0 && isWord(t, keyword));
  if (start === -1) return undefined;
  const end = own.findIndex((t, i) => i > start && t.depth === 0 && isWord(t, until));
  return own.slice(start + 1, end === -1 ? undefined : end);
}

/**
 * Why a statement that only reads by its verb changes data, locks rows or has other side effects, if it
 * does. A data-changing verb counts where a statement can start (`statementStarts`), so that it may name a
 * CTE, a column or an alias elsewhere; where that cannot be told, wherever it is not a function's name.
 */
function writes(tokens: SqlToken[], engine: Engine): string | undefined {
  const starts = statementStarts(tokens);
  const modifying = tokens.find((token, i) => isWord(token, MODIFYING_VERBS) && (starts ? starts(i) : !isPunct(tokens[i + 1], '(')));
  if (modifying) return `${modifying.text} inside the statement changes data`;
  const phrase = WRITING_PHRASES[engine].find((p) => hasPhrase(tokens, p));
  if (phrase) return phrase === 'INTO' ? 'SELECT … INTO creates a table' : `${phrase} locks rows`;
  const called = calledFunction(tokens, WRITING_FUNCTIONS[engine]);
  return called ? `calls ${called}, which changes state` : undefined;
}

/** Where the statement EXPLAIN or ANALYZE wraps starts: past their options. */
function wrappedStart(tokens: SqlToken[]): number {
  let i = 1;
  for (;;) {
    const token = tokens[i];
    if (i === 1 && isPunct(token, '(')) i = pastParentheses(tokens, i) ?? tokens.length;
    else if (isWord(token, EXPLAIN_OPTIONS)) i++;
    else if (isWord(token, 'FORMAT')) i += isPunct(tokens[i + 1], '=') ? 3 : 2;
    else return i;
  }
}

/** Refuses what Sluice never runs for a client: out-of-process reach, transaction control, session state. */
function refuseOutOfScope(tokens: SqlToken[], engine: Engine): void {
  if (
    leadsWith(tokens, DENIED_STATEMENTS[engine]) ||
    DENIED_PHRASES[engine].some((phrase) => hasPhrase(tokens, phrase)) ||
    calls(tokens, DENIED_FUNCTIONS[engine]) ||
    (engine === 'postgres' && untrustedRoutine(tokens))
  ) {
    throw new SqlRefusal(
      'denied',
      'statements that reach the file system, run server-side code or reach other servers are refused',
    );
  }
  if (leadsWith(tokens, TRANSACTION_CONTROL)) {
    throw new SqlRefusal(
      'unsupported',
      'transaction control is managed by Sluice: send one statement per call',
    );
  }
  if (leadsWith(tokens, SESSION_STATEMENTS[engine]) || calls(tokens, SESSION_FUNCTIONS[engine])) {
    throw new SqlRefusal(
      'unsupported',
      'session state is managed by Sluice: send one self-contained statement per call',
    );
  }
}

function classifyTokens(tokens: SqlToken[], engine: Engine): ClassifiedStatement {
  const verb = tokens[0]?.kind === 'word' ? tokens[0].text : '';
  refuseOutOfScope(tokens, engine);
  if (EXPLAIN_VERBS[engine].has(verb)) {
    // ANALYZE runs the statement, so EXPLAIN is what it runs.
    if (explainRuns(tokens, engine)) {
      const wrapped = classifyTokens(tokens.slice(wrappedStart(tokens)), engine);
      return { kind: wrapped.kind, verb, reason: `${verb} ANALYZE runs the statement: ${wrapped.reason}` };
    }
    // Planning alone may evaluate a constant subquery.
    const called = calledFunction(tokens, WRITING_FUNCTIONS[engine]);
    return called ? { kind: 'write', verb, reason: `planning it calls ${called}, which changes state` } : { kind: 'read', verb, reason: `${verb} only plans` };
  }
  if (verb === 'ANALYZE') {
    // MariaDB's ANALYZE <statement> runs it; ANALYZE <table> gathers statistics.
    const wrapped = tokens.slice(wrappedStart(tokens));
    if (!isWord(wrapped[0], ANALYZED_VERBS)) return { kind: 'ddl', verb, reason: 'ANALYZE rewrites a table’s statistics' };
    const inner = classifyTokens(wrapped, engine);
    return { kind: inner.kind, verb, reason: `ANALYZE runs the statement: ${inner.reason}` };
  }
  if (DESTRUCTIVE_VERBS.has(verb)) {
    const object = verb === 'DROP' && tokens[1]?.kind === 'word' ? ` ${tokens[1].text}` : '';
    return { kind: 'destructive', verb, reason: `${verb}${object} removes data for good` };
  }
  const everyRow = changesEveryRow(tokens);
  if (everyRow) return { kind: 'destructive', verb, reason: `${everyRow} changes every row` };
  // The engine has the last word: a "read" it calls a write is refused and handled as a write.
  if (READ_VERBS[engine].has(verb)) {
    const why = writes(tokens, engine);
    return why ? { kind: 'write', verb, reason: why } : { kind: 'read', verb, reason: `${verb} only reads` };
  }
  if (verb === 'PRAGMA' && engine === 'sqlite') {
    const { name, reads } = sqlitePragma(tokens);
    return reads ? { kind: 'read', verb, reason: `PRAGMA ${name} only reads` } : { kind: 'write', verb, reason: `PRAGMA ${name} may set a value` };
  }
  if (DDL_VERBS.has(verb)) return { kind: 'ddl', verb, reason: `${verb} changes the schema` };
  // Data changes (INSERT, UPDATE, MERGE, CALL, …) and what this cannot read are never run as reads.
  if (MODIFYING_VERBS.has(verb)) return { kind: 'write', verb, reason: `${verb} changes data` };
  return { kind: 'write', verb, reason: `${verb || 'this statement'} is not known to only read` };
}

/**
 * Classifies one SQL statement for `engine`. More than one statement, an empty one, or text the lexer
 * cannot read are `invalid_argument`; statements that reach the file system, run server-side code or
 * reach other servers are `denied`; transaction control and session state are `unsupported`.
 */
export function classifyStatement(sql: string, engine: Engine): ClassifiedStatement {
  let statements: SqlToken[][];
  try {
    statements = splitStatements(tokenize(sql, engine));
  } catch (error) {
    if (error instanceof UnreadableSql)
      throw new SqlRefusal('invalid_argument', `the SQL cannot be read: ${error.message}`);
    throw error;
  }
  if (statements.length === 0) throw new SqlRefusal('invalid_argument', 'the SQL is empty');
  if (statements.length > 1) throw new SqlRefusal('invalid_argument', 'send exactly one statement per call');
  return classifyTokens(statements[0] as SqlToken[], engine);
}
