import { isName, isPunct, type SqlToken } from './tokens.js';

/** SQLite pragmas that only read, given one argument in parentheses (a table, an index, a limit) or none. */
const READ_WITH_ARGUMENT = new Set([
  'TABLE_INFO',
  'TABLE_XINFO',
  'TABLE_LIST',
  'INDEX_LIST',
  'INDEX_INFO',
  'INDEX_XINFO',
  'FOREIGN_KEY_LIST',
  'FOREIGN_KEY_CHECK',
  'INTEGRITY_CHECK',
  'QUICK_CHECK',
]);
/**
 * …and those that only read without one: most of them set a value given one (`PRAGMA user_version = 3`,
 * `PRAGMA user_version(3)`, `PRAGMA journal_mode(WAL)`). Not here, though they take no argument:
 * `optimize`, `wal_checkpoint`, `incremental_vacuum`, `shrink_memory`, which change the file or the session.
 */
const READ_WITHOUT_ARGUMENT = new Set([
  'DATABASE_LIST',
  'COLLATION_LIST',
  'FUNCTION_LIST',
  'MODULE_LIST',
  'PRAGMA_LIST',
  'COMPILE_OPTIONS',
  'USER_VERSION',
  'APPLICATION_ID',
  'SCHEMA_VERSION',
  'DATA_VERSION',
  'PAGE_COUNT',
  'PAGE_SIZE',
  'MAX_PAGE_COUNT',
  'FREELIST_COUNT',
  'ENCODING',
  'JOURNAL_MODE',
  'JOURNAL_SIZE_LIMIT',
  'LOCKING_MODE',
  'AUTO_VACUUM',
  'AUTOMATIC_INDEX',
  'BUSY_TIMEOUT',
  'CACHE_SIZE',
  'CACHE_SPILL',
  'CELL_SIZE_CHECK',
  'CHECKPOINT_FULLFSYNC',
  'DEFER_FOREIGN_KEYS',
  'FOREIGN_KEYS',
  'FULLFSYNC',
  'HARD_HEAP_LIMIT',
  'SOFT_HEAP_LIMIT',
  'IGNORE_CHECK_CONSTRAINTS',
  'LEGACY_ALTER_TABLE',
  'MMAP_SIZE',
  'QUERY_ONLY',
  'READ_UNCOMMITTED',
  'RECURSIVE_TRIGGERS',
  'REVERSE_UNORDERED_SELECTS',
  'SECURE_DELETE',
  'SYNCHRONOUS',
  'TEMP_STORE',
  'THREADS',
  'TRUSTED_SCHEMA',
  'WAL_AUTOCHECKPOINT',
  'ANALYSIS_LIMIT',
]);

/**
 * A SQLite PRAGMA's name (past a `schema.`), and whether it only reads: exactly `PRAGMA [schema.]name`
 * for a pragma that only reads without an argument, or `PRAGMA [schema.]name(one value)` for one that
 * reads with one. Any other shape, `=` above all, may set a value.
 */
export function sqlitePragma(tokens: SqlToken[]): { name: string; reads: boolean } {
  const at = isPunct(tokens[2], '.') ? 3 : 1;
  const name = isName(tokens[at]) ? (tokens[at] as SqlToken).text : '';
  const rest = tokens.slice(at + 1);
  const schemaReadable = at === 1 || isName(tokens[1]);
  const argument = rest.length === 3 && isPunct(rest[0], '(') && rest[1]?.kind !== 'punct' && isPunct(rest[2], ')');
  const reads = schemaReadable && ((rest.length === 0 && (READ_WITHOUT_ARGUMENT.has(name) || READ_WITH_ARGUMENT.has(name))) || (argument && READ_WITH_ARGUMENT.has(name)));
  return { name, reads };
}
