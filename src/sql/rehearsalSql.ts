import type { Engine } from '../core/shared/engineNames.js';
import type { SqlDialect } from './browseSql.js';
import { type RowSelection, selectRows } from './countQuery.js';
import { isPunct, isWord, nameAsWritten, type SpannedToken, splitStatements, tokenSpans } from './tokens.js';

/**
 * Functions whose effect escapes a transaction that is rolled back, or that give another value on each
 * run (so a rolled-back try would show rows the approved write does not make): sequences, sleeps,
 * locks held past the transaction, files, other servers, random values, session state. By lower-case
 * name, on every engine (a name an engine does not have is never called there). Clock functions
 * (`now()`, `current_timestamp`) are not here: the try shows the values of its own moment.
 */
const ESCAPING_CALLS = new Set([
  'nextval', 'setval', 'lastval', 'last_insert_id', 'setseed',
  'random', 'rand', 'randomblob', 'uuid', 'uuid_short', 'gen_random_uuid', 'uuid_generate_v1', 'uuid_generate_v4', 'uuidv4', 'uuidv7',
  'sleep', 'pg_sleep', 'pg_sleep_for', 'pg_sleep_until', 'benchmark',
  'dblink', 'dblink_exec', 'dblink_send_query', 'dblink_connect',
  'lo_import', 'lo_export', 'lo_unlink', 'lo_create', 'lo_creat', 'lo_from_bytea', 'lo_put',
  'pg_read_file', 'pg_read_binary_file', 'pg_ls_dir', 'pg_stat_file', 'pg_file_write', 'load_file', 'load_extension',
  'read_csv', 'read_csv_auto', 'read_parquet', 'read_json', 'read_json_auto', 'read_text', 'read_blob', 'http_get', 'http_post',
  'pg_notify', 'pg_advisory_lock', 'pg_try_advisory_lock', 'get_lock', 'release_lock', 'set_config',
  'pg_terminate_backend', 'pg_cancel_backend', 'sys_exec', 'sys_eval',
]);

/** The first function the statement calls whose effect escapes its transaction (`ESCAPING_CALLS`), as written. */
export function escapingCall(sql: string, engine: Engine): string | undefined {
  const tokens = tokenSpans(sql, engine);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as SpannedToken;
    if (token.kind === 'word' && isPunct(tokens[i + 1], '(') && ESCAPING_CALLS.has(token.text.toLowerCase())) return sql.slice(token.start, token.end);
  }
  return undefined;
}

/** The table a write names: as written (`target`, alias included), and its schema and name unquoted. */
export type WrittenTable = { target: string; schema: string | undefined; name: string };

/** `name`, `schema.name`, then an optional `[AS] alias`, read from `tokens` at `at`; undefined for anything else. */
function tableAt(sql: string, tokens: SpannedToken[], at: number): (WrittenTable & { end: number }) | undefined {
  const first = nameAsWritten(sql, tokens[at]);
  if (first === undefined) return undefined;
  const dotted = isPunct(tokens[at + 1], '.') ? nameAsWritten(sql, tokens[at + 2]) : undefined;
  const end = dotted === undefined ? at + 1 : at + 3;
  return { target: sql.slice(tokens[at]?.start, tokens[end - 1]?.end), schema: dotted === undefined ? undefined : first, name: dotted ?? first, end };
}

/** An UPDATE's or DELETE's table, from its row selection's target (`name`, `schema.name`, with an alias after). */
export function selectedTable(selection: RowSelection, engine: Engine): WrittenTable | undefined {
  const tokens = tokenSpans(selection.target, engine);
  const table = tableAt(selection.target, tokens, 0);
  return table && { target: selection.target, schema: table.schema, name: table.name };
}

/** Words after which an INSERT may change rows already there, or that it writes in a way not tried. */
const UPSERTS: Array<[string, string]> = [
  ['ON', 'CONFLICT'],
  ['ON', 'DUPLICATE'],
  ['OR', 'REPLACE'],
];

/**
 * A plain `INSERT [OR IGNORE] INTO t …`, as it is tried: its table, and the statement with `RETURNING *`
 * (without its final semicolon), so that the rows it adds come back. An upsert (it may change rows
 * already there), an INSERT with a RETURNING of its own, and any other statement are refused, saying why.
 */
export function insertTried(sql: string, engine: Engine): { table: WrittenTable; sql: string } | { refused: string } {
  const [tokens = []] = splitStatements(tokenSpans(sql, engine)) as SpannedToken[][];
  if (!isWord(tokens[0], 'INSERT')) return { refused: 'only INSERT, UPDATE and DELETE are tried' };
  let at = 1;
  if (isWord(tokens[at], 'OR') && isWord(tokens[at + 1], 'IGNORE')) at += 2;
  if (!isWord(tokens[at], 'INTO')) return { refused: 'the INSERT is not a plain INSERT INTO' };
  const table = tableAt(sql, tokens, at + 1);
  if (!table) return { refused: 'the INSERT does not name one plain table' };
  for (let i = 0; i < tokens.length; i++) {
    const upsert = UPSERTS.find(([a, b]) => isWord(tokens[i], a) && isWord(tokens[i + 1], b));
    if (upsert) return { refused: `with ${upsert.join(' ')} it may change rows already there` };
    if (isWord(tokens[i], 'RETURNING')) return { refused: 'it has a RETURNING clause of its own' };
  }
  const end = tokens.at(-1)?.end ?? sql.length;
  return { table: { target: table.target, schema: table.schema, name: table.name }, sql: `${sql.slice(0, end)} RETURNING *` };
}

/** The rows an UPDATE or DELETE would change as they are now, in key order. */
export const rowsBefore = (selection: RowSelection, keys: string[], dialect: SqlDialect) =>
  `${selectRows(selection, '*')}${keys.length === 0 ? '' : ` ORDER BY ${keys.map(dialect.quoteIdent).join(', ')}`}`;

/** One row of `target` by its key's values, bound in the key's order. */
export const rowByKey = (target: string, keys: string[], dialect: SqlDialect) =>
  `SELECT * FROM ${target} WHERE ${keys.map((key, i) => `${dialect.quoteIdent(key)} = ${dialect.placeholder(i + 1)}`).join(' AND ')}`;
