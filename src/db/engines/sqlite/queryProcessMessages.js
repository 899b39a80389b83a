// What the SQLite query process (queryProcess.js) and its pool (processPool.ts) say to each other: the
// arguments a process starts with, the messages the pool sends, and the ones the process answers with.
// Both ends import this file; plain JavaScript with JSDoc types, as the process loads it as it stands
// from `src/` (tests) and `dist/`.
import { UNDO } from '../../../core/contract.js';
import { exactBytes } from '../../keepSteps.js';

/**
 * The settings a query process starts with, as its command-line arguments.
 * @typedef {{ busyTimeoutMs: number, filesPerProcess: number }} ProcessArgs
 */

/** @param {ProcessArgs} args */
export const processArgv = ({ busyTimeoutMs, filesPerProcess }) => [String(busyTimeoutMs), String(filesPerProcess)];

/**
 * The process's settings from its `process.argv` (node and the script come first).
 * @param {string[]} argv
 * @returns {ProcessArgs}
 */
export const processArgs = (argv) => ({ busyTimeoutMs: Number(argv[2]), filesPerProcess: Number(argv[3]) });

/**
 * One statement for the file at `path`, run for `owner` (a token's id, see sessionOwner.ts). `check`
 * prepares it and runs nothing. `rowsAs: 'json'` has the rows serialised in the process (see `RowsChunk`).
 * `pages` is a read handed on a page of at most `pageRows` rows or about `pageBytes` at a time (see
 * `Page` and `PageWritten`). `count` runs the statements `counts` instead of `sql`, each a
 * `SELECT count(*) FROM <table> WHERE sluice_counting()`, for at most `budgetMs` in all (see `COUNTING`).
 * `rehearse` tries the write `plan` describes (db/rehearsal.js) in a transaction it rolls back, and
 * answers with one row of one cell: the `Rehearsed` outcome. `hold` is a read whose process keeps its
 * statement open when rows remain (`more`), in a read transaction; `next` reads its next page, `release` ends it.
 * `keep` runs an approved write with its rows kept (`keep`, db/keepSteps.js; the write's own answer within
 * `maxRows` and `maxBytes`), `restore` takes one back (`restore`, db/restoreSteps.js), each in one write
 * transaction, answering with one row of one cell: the steps' outcome.
 * @typedef {{
 *   id: number, path: string, owner: string, timeoutMs: number,
 *   mode: 'read' | 'hold' | 'next' | 'release' | 'pages' | 'write' | 'check' | 'count' | 'rehearse' | 'keep' | 'restore',
 *   sql: string, params: unknown[], maxRows: number, maxBytes: number, cellBytes?: number,
 *   rowsAs?: 'values' | 'json', pageRows?: number, pageBytes?: number, counts?: string[], budgetMs?: number,
 *   plan?: import('../../rehearsal.js').RehearsalPlan,
 *   keep?: import('../../keepSteps.js').KeepStepsPlan, restore?: import('../../restoreSteps.js').RestoreStepsPlan
 * }} StatementRequest
 */

/**
 * The function a `count` statement calls on each row, which stops the count once its budget has passed
 * (better-sqlite3 has no progress handler or interrupt); outside a count it only answers 1.
 */
export const COUNTING = 'sluice_counting';

/**
 * Close the file at `close` in this process: its last connection in the server closed.
 * @typedef {{ close: string }} CloseFile
 */

/**
 * The page sent last for request `written` is written: the process may read on.
 * @typedef {{ written: number }} PageWritten
 */

/** @typedef {StatementRequest | CloseFile | PageWritten | KeptPiece} PoolMessage */

/** @param {string} path @returns {CloseFile} */
export const closeFile = (path) => ({ close: path });

/**
 * @param {PoolMessage} message
 * @returns {message is CloseFile}
 */
export const isCloseFile = (message) => 'close' in message;

/** @param {number} id @returns {PageWritten} */
export const pageWritten = (id) => ({ written: id });

/**
 * @param {PoolMessage} message
 * @returns {message is PageWritten}
 */
export const isPageWritten = (message) => 'written' in message;

/** @typedef {{ name: string, type: string }} ReplyColumn */

/**
 * What a statement returned, without its rows.
 * @typedef {{
 *   columns: ReplyColumn[], truncated: boolean, truncatedBy?: 'max_rows' | 'max_bytes', cellsCut: number,
 *   columnsLeftOut?: number, valuesAsText?: number, rowsAffected: number, more?: boolean
 * }} ReplyResult
 */

/**
 * The rows: as values, or (`rowsAs: 'json'`) the last of them as a JSON array and as the escaped lines
 * of the result's text, after the `RowsChunk`s sent ahead; `rowCount` counts them all.
 * @typedef {{ rows: unknown[][] } | { rowsJson: string, linesJson: string, rowCount: number }} ReplyRows
 */

/** The statement is not one SQLite calls a read (a read was asked for). */
export const NOT_READ_ONLY = 'not_read_only';
/** SQLite could not parse the statement (`mode: 'check'`). */
export const DOES_NOT_PREPARE = 'does_not_prepare';

/**
 * Why a statement failed: SQLite's own code (`SQLITE_…`), `NOT_READ_ONLY` or `DOES_NOT_PREPARE`.
 * @typedef {{ code: string, message: string }} ReplyError
 */

/** @typedef {({ ok: true } & ReplyResult & ReplyRows) | { ok: false, error: ReplyError }} Outcome */

/**
 * The answer to a `StatementRequest`, by its `id`. Every one says how much memory its process holds
 * (`rss`, bytes), so that a grown one can be replaced.
 * @typedef {{ id: number, rss: number } & Outcome} Reply
 */

/**
 * Rows sent ahead of the reply while the statement still runs: a JSON array, and the same rows as the
 * escaped lines of the result's text (see JsonRows in database.ts).
 * @typedef {{ id: number, rowsChunk: string, linesChunk: string }} RowsChunk
 */

/**
 * A full page of a paged read: the process reads on once the pool answers with `PageWritten`. The last
 * page comes in the reply.
 * @typedef {{ id: number, page: unknown[][], columns: ReplyColumn[] }} Page
 */

/**
 * Kept rows (db/keptWrites.ts) sent in pieces of about `UNDO.pieceBytes` beside a `keep` or `restore`,
 * so that no one message is large: the pool sends a `restore`'s rows ahead of it (the request's own
 * `restore.rows` holds none), the process a kept write's rows ahead of its reply (the outcome's
 * `kept` holds none). Each side puts them back in order (`joinKeptPiece`).
 * @typedef {{ id: number, keptPiece: { side: 'before' | 'after', rows: Array<ExactValue[] | null> } }} KeptPiece
 */
/** @typedef {import('../../keptWrites.js').ExactValue} ExactValue */
/** @typedef {import('../../keptWrites.js').KeptRows} KeptRows */

/**
 * @param {PoolMessage | ProcessMessage} message
 * @returns {message is KeptPiece}
 */
export const isKeptPiece = (message) => 'keptPiece' in message;

/**
 * The pieces of `rows` for request `id`, before then after, each about `pieceBytes` (exactBytes).
 * @param {number} id
 * @param {KeptRows} rows
 * @returns {Generator<KeptPiece>}
 */
export function* keptPieces(id, rows) {
  for (const side of /** @type {const} */ (['before', 'after'])) {
    let piece = [];
    let bytes = 0;
    for (const row of rows[side]) {
      piece.push(row);
      // An undo's own rows may be absent on one side of a pair (restoreSteps.js).
      bytes += row === null ? 5 : exactBytes(row);
      if (bytes < UNDO.pieceBytes) continue;
      yield { id, keptPiece: { side, rows: piece } };
      piece = [];
      bytes = 0;
    }
    if (piece.length > 0) yield { id, keptPiece: { side, rows: piece } };
  }
}

/**
 * `rows` without its before and after, which go in pieces.
 * @param {KeptRows} rows
 * @returns {KeptRows}
 */
export const withoutRows = (rows) => ({ ...rows, before: [], after: [] });

/**
 * Adds a piece's rows to the side of `rows` it belongs to.
 * @param {KeptRows} rows
 * @param {KeptPiece} piece
 */
export function joinKeptPiece(rows, { keptPiece }) {
  for (const row of keptPiece.rows) rows[keptPiece.side].push(row);
}

/** @typedef {Reply | RowsChunk | Page | KeptPiece} ProcessMessage */

/**
 * @param {ProcessMessage} message
 * @returns {message is RowsChunk}
 */
export const isRowsChunk = (message) => 'rowsChunk' in message;

/**
 * @param {ProcessMessage} message
 * @returns {message is Page}
 */
export const isPage = (message) => 'page' in message;
