import { isName, isPunct, isWord, type SqlToken, splitStatements, tokenize, UnreadableSql } from '../../../sql/tokens.js';

/**
 * SQLite calls `PRAGMA journal_mode` a write even when it only asks (the same program changes the mode
 * when given one), so the query process, which runs as a read only what SQLite calls read-only, would
 * refuse it. Asked without a value it becomes its read-only table-valued form, which answers the same
 * (`PRAGMA temp.journal_mode` → `… pragma_journal_mode('TEMP')`); any other text comes back unchanged.
 */
export function journalModeQuery(sql: string): string {
  let statements: SqlToken[][];
  try {
    statements = splitStatements(tokenize(sql, 'sqlite'));
  } catch (error) {
    if (error instanceof UnreadableSql) return sql;
    throw error;
  }
  const [tokens = [], ...more] = statements;
  if (more.length > 0 || !isWord(tokens[0], 'PRAGMA') || !isWord(tokens.at(-1), 'JOURNAL_MODE')) return sql;
  if (tokens.length === 2) return 'SELECT journal_mode FROM pragma_journal_mode';
  const schema = tokens[1];
  if (tokens.length !== 4 || !isName(schema) || !isPunct(tokens[2], '.')) return sql;
  return `SELECT journal_mode FROM pragma_journal_mode('${(schema as SqlToken).text.replaceAll("'", "''")}')`;
}
