import { ToolError } from '../protocol/errors.js';
import { type SqlToken, splitStatements, tokenize, UnreadableSql } from './sqlTokens.js';

export type StatementKind = 'read' | 'write' | 'ddl' | 'destructive';

const WRITE_VERBS = new Set(['INSERT', 'UPDATE', 'DELETE', 'REPLACE', 'UPSERT', 'MERGE']);
const CTE_WRITE_VERBS = new Set(['INSERT', 'UPDATE', 'DELETE']);
const DDL_VERBS = new Set(['CREATE', 'ALTER', 'REINDEX', 'ANALYZE', 'COMMENT', 'RENAME']);
const DESTRUCTIVE_VERBS = new Set(['DROP', 'TRUNCATE']);
const WHERE = new Set(['WHERE']);
const TRANSACTION_VERBS = new Set(['BEGIN', 'COMMIT', 'END', 'ROLLBACK', 'SAVEPOINT', 'RELEASE', 'START']);
/** Statements and functions that reach the file system or load code: refused on every tool. */
const FILE_VERBS = new Set(['ATTACH', 'DETACH', 'VACUUM', 'LOAD', 'COPY']);
const FILE_FUNCTIONS = new Set(['LOAD_EXTENSION', 'READFILE', 'WRITEFILE', 'EDIT', 'FTS3_TOKENIZER']);
/** Introspection pragmas that only read; any other pragma, or any assignment, is not a read. */
const READ_PRAGMAS = new Set([
  'TABLE_INFO',
  'TABLE_XINFO',
  'TABLE_LIST',
  'INDEX_LIST',
  'INDEX_INFO',
  'INDEX_XINFO',
  'FOREIGN_KEY_LIST',
  'DATABASE_LIST',
  'COLLATION_LIST',
  'FUNCTION_LIST',
  'PRAGMA_LIST',
  'COMPILE_OPTIONS',
  'FOREIGN_KEY_CHECK',
  'INTEGRITY_CHECK',
  'QUICK_CHECK',
  'USER_VERSION',
  'SCHEMA_VERSION',
  'PAGE_COUNT',
  'PAGE_SIZE',
  'ENCODING',
]);

export type ClassifiedStatement = { kind: StatementKind; verb: string };

const hasWord = (tokens: SqlToken[], words: Set<string>) =>
  tokens.some((t) => t.kind === 'word' && words.has(t.text));

function classifyTokens(tokens: SqlToken[]): ClassifiedStatement {
  const verb = tokens[0]?.kind === 'word' ? tokens[0].text : '';
  if (FILE_VERBS.has(verb) || hasWord(tokens, FILE_FUNCTIONS)) {
    throw new ToolError('denied', 'statements that reach the file system or load code are refused');
  }
  if (TRANSACTION_VERBS.has(verb)) {
    throw new ToolError(
      'unsupported',
      'transaction control is managed by Sluice: send one statement per call',
    );
  }
  // The engine has the last word: a "read" it calls a write is refused and handled as a write.
  if (verb === 'SELECT' || verb === 'VALUES' || verb === 'EXPLAIN') return { kind: 'read', verb };
  if (verb === 'WITH') return { kind: hasWord(tokens, CTE_WRITE_VERBS) ? 'write' : 'read', verb };
  if (verb === 'PRAGMA') {
    const name = tokens.filter((t) => t.kind === 'word')[1]?.text ?? '';
    const assigns = tokens.some((t) => t.kind === 'punct' && t.text === '=');
    return { kind: READ_PRAGMAS.has(name) && !assigns ? 'read' : 'write', verb };
  }
  if (DESTRUCTIVE_VERBS.has(verb)) return { kind: 'destructive', verb };
  if (verb === 'DELETE' && !hasWord(tokens, WHERE)) return { kind: 'destructive', verb };
  if (WRITE_VERBS.has(verb)) return { kind: 'write', verb };
  if (DDL_VERBS.has(verb)) return { kind: 'ddl', verb };
  // What this classifier cannot read is never run as a read.
  return { kind: 'write', verb };
}

/**
 * Classifies one SQL statement. More than one statement, an empty one, or text the lexer cannot read
 * are `invalid_argument`; statements that touch files or load code are `denied`.
 */
export function classifyStatement(sql: string): ClassifiedStatement {
  let statements: SqlToken[][];
  try {
    statements = splitStatements(tokenize(sql));
  } catch (error) {
    if (error instanceof UnreadableSql)
      throw new ToolError('invalid_argument', `the SQL cannot be read: ${error.message}`);
    throw error;
  }
  if (statements.length === 0) throw new ToolError('invalid_argument', 'the SQL is empty');
  if (statements.length > 1) throw new ToolError('invalid_argument', 'send exactly one statement per call');
  return classifyTokens(statements[0] as SqlToken[]);
}
