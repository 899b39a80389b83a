// A child process that runs SQLite statements for any SQLite connection of the application, on read
// connections it keeps to the files it served last. Plain JavaScript so the same file serves `src/`
// (tests) and `dist/`. A process, not a worker thread: a statement busy inside SQLite cannot be
// interrupted from another thread, but a process can always be killed (see docs/design.md).
import { performance } from 'node:perf_hooks';
import { URL } from 'node:url';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { DATABASES, RESULTS } from '../../../core/contract.js';
import { blobHex, RowBudget } from '../../results/resultBudget.js';
import { RowPages } from '../../results/rowPages.js';
import { rowText } from '../../results/valueText.js';
import { rehearseSteps } from '../../rehearsal.js';
import { keepSteps } from '../../keepSteps.js';
import { restoreSteps } from '../../restoreSteps.js';
import { keptSession } from './keptSession.js';
import { COUNTING, DOES_NOT_PREPARE, isCloseFile, isKeptPiece, isPageWritten, joinKeptPiece, keptPieces, NOT_READ_ONLY, processArgs, withoutRows } from './queryProcessMessages.js';

/** @typedef {import('./queryProcessMessages.js').StatementRequest} Request */
/** @typedef {import('./queryProcessMessages.js').Outcome} Outcome */
/** @typedef {import('../../keepSteps.js').KeepStepsPlan} KeepStepsPlan */
/** @typedef {import('../../restoreSteps.js').RestoreStepsPlan} RestoreStepsPlan */

const { busyTimeoutMs, filesPerProcess } = processArgs(process.argv);
const SQLITE_HEAP_BYTES = DATABASES.sqliteHeapMb * 1024 * 1024;

/**
 * Open read connections by file path, least recently used first (a Map keeps insertion order).
 * @type {Map<string, import('better-sqlite3').Database>}
 */
const connections = new Map();

/** Rows a count steps through between two looks at the clock. */
const ROWS_PER_CLOCK_LOOK = 4096;
/** The running count's deadline (`performance.now()`, ms); 0 while none runs. */
let countDeadline = 0;
let countedRows = 0;

/** What `sluice_counting` throws to stop a count past its deadline. */
class CountStopped extends Error {}

/** `sluice_counting()`, called on each row a count steps through: 1, or a stop once the deadline has passed. */
function counting() {
  countedRows += 1;
  if (countDeadline !== 0 && countedRows % ROWS_PER_CLOCK_LOOK === 0 && performance.now() > countDeadline) {
    throw new CountStopped('the count ran past its budget');
  }
  return 1;
}

/**
 * The owner (a token's id, see db/connections/sessionOwner.ts) whose write last ran on each open connection, by path. A
 * write can leave temporary objects, pragma settings and `last_insert_rowid()` on its connection; reads
 * leave nothing (query_only, and only statements SQLite calls read-only). Another owner gets the file
 * reopened first.
 * @type {Map<string, string>}
 */
const writers = new Map();

/**
 * The read connection to `path` for `owner`, opened on first use or when another owner wrote on it;
 * past `filesPerProcess` the least recently used one is closed.
 * @param {string} path
 * @param {string} owner
 */
function connection(path, owner) {
  if ((writers.get(path) ?? owner) !== owner) closeFile(path);
  const open = connections.get(path);
  if (open) {
    connections.delete(path);
    connections.set(path, open);
    return open;
  }
  const db = new Database(path, { fileMustExist: true, timeout: busyTimeoutMs });
  try {
    db.pragma('foreign_keys = ON');
    db.pragma('query_only = ON');
    // SQLite's own allocations fail a statement with SQLITE_NOMEM past this, before the process runs out.
    db.pragma(`hard_heap_limit = ${SQLITE_HEAP_BYTES}`);
    db.function(COUNTING, { deterministic: false, directOnly: true }, counting);
  } catch (error) {
    db.close();
    throw error;
  }
  connections.set(path, db);
  for (const [oldest, old] of connections) {
    if (connections.size <= filesPerProcess) break;
    connections.delete(oldest);
    writers.delete(oldest);
    old.close();
  }
  return db;
}

/** @param {string} path */
function closeFile(path) {
  if (held?.path === path) release();
  connections.get(path)?.close();
  connections.delete(path);
  writers.delete(path);
}

/**
 * A value as JSON can carry it: large integers as text, blobs as `0x…` hex cut at `cellLimit`.
 * @param {unknown} value
 * @param {number} cellLimit
 */
function toWire(value, cellLimit) {
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (value instanceof Uint8Array) return blobHex(value, cellLimit).text;
  return value;
}

/**
 * A row's values made wire values in place (a fresh array per row costs more than the conversion itself);
 * returns how many blobs were cut to the cell limit.
 * @param {unknown[]} values
 * @param {number} cellLimit
 */
function wireRow(values, cellLimit) {
  let blobsCut = 0;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value === 'bigint' || typeof value === 'object') {
      if (value instanceof Uint8Array && 2 * value.length + 4 > cellLimit) blobsCut += 1;
      values[i] = toWire(value, cellLimit);
    }
  }
  return blobsCut;
}

/**
 * Rows sent ahead as JSON while the statement still runs, so that copying them overlaps the query: this
 * many, or fewer that use `RESULTS.answerBatchChars` of the budget (the server parses each message in one turn).
 */
const CHUNK_ROWS = 1_000;

/**
 * Row lines as the inside of a JSON string: escaped here, so that the server splices them into its
 * response as they stand.
 * @param {string[]} lines
 */
const escapedLines = (lines) => JSON.stringify(lines.join('\n')).slice(1, -1);

/** @param {import('./queryProcessMessages.js').ProcessMessage} message */
const send = (message) => process.send?.(message);

/**
 * A result column as the server takes it: its name, its declared type and, when SQLite can tell, the
 * table column it reads (`origin`, by which private columns are recognised).
 * @param {import('better-sqlite3').ColumnDefinition} c
 */
function resultColumn(c) {
  const column = { name: c.name, type: c.type ?? '' };
  return c.table && c.column ? { ...column, origin: { schema: c.database ?? 'main', table: c.table, column: c.column } } : column;
}

/**
 * The statement's rows, all of them (`collectRows`), its iterator ended after.
 * @param {import('better-sqlite3').Statement} stmt
 * @param {Request} request
 */
function collect(stmt, request) {
  stmt.safeIntegers(true);
  const iterator = stmt.raw(true).iterate(...request.params);
  try {
    return collectRows(stmt.columns(), iterator, request, undefined);
  } finally {
    iterator.return?.();
  }
}

/**
 * @typedef {{ db: import('better-sqlite3').Database, path: string, iterator: IterableIterator<unknown>,
 *   all: import('better-sqlite3').ColumnDefinition[], pending: unknown[] | undefined }} Held
 */

/**
 * The next row: a held read's row that the last page read but left out, else the iterator's next.
 * @param {IterableIterator<unknown>} iterator
 * @param {Held | undefined} held
 * @returns {unknown[] | undefined}
 */
function nextRow(iterator, held) {
  const pending = held?.pending;
  if (pending) {
    held.pending = undefined;
    return pending;
  }
  const step = iterator.next();
  return step.done ? undefined : /** @type {unknown[]} */ (step.value);
}

/**
 * The rows as values, or (`rowsAs: 'json'`) as JSON text, serialised here beside the query rather than
 * copied to the server as values to be serialised there: every full chunk goes ahead at once as
 * `{ id, rowsChunk, linesChunk }` (a JSON array, and the same rows as the lines of the result's text,
 * JSON-escaped: see JsonRows in database.ts), the last one in the reply as `rowsJson` and `linesJson`.
 * A held read (`held`) keeps the row it read past the page for its next page.
 * @param {import('better-sqlite3').ColumnDefinition[]} all
 * @param {IterableIterator<unknown>} iterator
 * @param {Request} request
 * @param {Held | undefined} held
 */
function collectRows(all, iterator, { id, maxRows, maxBytes, cellBytes, rowsAs }, held) {
  const budget = new RowBudget(maxBytes, { cellBytes, answer: rowsAs === 'json' });
  const columns = budget.takeColumns(all.map(resultColumn), all.length);
  /** @type {unknown[][]} */
  let rows = [];
  /** @type {string[]} */
  let lines = [];
  let count = 0;
  /** The budget used when the chunk being filled began. */
  let chunkStart = budget.used;
  /** @type {'max_rows' | 'max_bytes' | undefined} */
  let truncatedBy;
  for (let values = nextRow(iterator, held); values; values = nextRow(iterator, held)) {
    if (count === maxRows) {
      truncatedBy = 'max_rows';
      if (held) held.pending = values;
      break;
    }
    if (values.length > columns.length) values.length = columns.length;
    const blobsCut = wireRow(values, budget.cellLimit);
    if (!budget.take(values)) {
      truncatedBy = 'max_bytes';
      if (held) held.pending = values;
      break;
    }
    budget.cellsCut += blobsCut;
    rows.push(values);
    count += 1;
    if (rowsAs !== 'json') continue;
    lines.push(rowText(values));
    if (rows.length === CHUNK_ROWS || budget.used - chunkStart >= RESULTS.answerBatchChars) {
      send({ id, rowsChunk: JSON.stringify(rows), linesChunk: escapedLines(lines) });
      rows = [];
      lines = [];
      chunkStart = budget.used;
    }
  }
  const truncation = budget.outcome(truncatedBy);
  if (rowsAs === 'json') return { columns, rowsJson: JSON.stringify(rows), linesJson: escapedLines(lines), rowCount: count, ...truncation };
  return { columns, rows, ...truncation };
}

/**
 * Runs one read. SQLite itself is the last word on "read": a statement it does not call read-only, or
 * that returns no rows (transaction control, pragma assignments), is refused here.
 * @param {import('better-sqlite3').Database} db
 * @param {Request} request
 * @returns {Outcome}
 */
function read(db, request) {
  const stmt = db.prepare(request.sql);
  if (!stmt.readonly || !stmt.reader) {
    return { ok: false, error: { code: NOT_READ_ONLY, message: 'the statement is not a read' } };
  }
  return { ok: true, ...collect(stmt, request), rowsAffected: 0 };
}

/**
 * The read held open between pages (`hold`), on this process, which its pool keeps for it alone: its
 * statement's iterator in a read transaction (BEGIN), so that every page sees the first one's snapshot.
 * @type {Held | undefined}
 */
let held;

/**
 * Runs a read to be read on: its first page, and (`more`) whether it stays held for the next. Only a
 * database in WAL mode is held: there a read transaction blocks no writer; elsewhere it would, so the
 * read runs as `read` and nothing is held.
 * @param {import('better-sqlite3').Database} db
 * @param {Request} request
 * @returns {Outcome}
 */
function hold(db, request) {
  if (db.pragma('journal_mode', { simple: true }) !== 'wal') return read(db, request);
  const stmt = db.prepare(request.sql);
  if (!stmt.readonly || !stmt.reader) {
    return { ok: false, error: { code: NOT_READ_ONLY, message: 'the statement is not a read' } };
  }
  stmt.safeIntegers(true);
  db.exec('BEGIN');
  held = { db, path: request.path, iterator: stmt.raw(true).iterate(...request.params), all: stmt.columns(), pending: undefined };
  return nextPage(request);
}

/**
 * The held read's next page, within the request's rows and bytes; the read ends after its last.
 * @param {Request} request
 * @returns {Outcome}
 */
function nextPage(request) {
  if (!held) return { ok: false, error: { code: 'SQLITE_MISUSE', message: 'no read is held' } };
  const page = collectRows(held.all, held.iterator, request, held);
  const more = page.truncated && held.pending !== undefined && ('rows' in page ? page.rows.length : page.rowCount) > 0;
  return { ok: true, ...page, rowsAffected: 0, more };
}

/** Ends the held read, if there is one: its iterator, then its transaction. */
function release() {
  const ending = held;
  held = undefined;
  if (!ending) return;
  ending.iterator.return?.();
  if (ending.db.inTransaction) ending.db.exec('ROLLBACK');
}

/** Resolves the wait for the server's word that it has written the page sent last. */
let written = () => {};

/**
 * Runs one read whose rows go to the server a page at a time (export_data): each full page is sent as
 * a `Page`, and the next is read only once the server has written it and said so (`PageWritten`), so
 * this process never runs ahead of the file. The last page comes in the reply.
 * @param {import('better-sqlite3').Database} db
 * @param {Request} request
 * @returns {Promise<Outcome>}
 */
async function pages(db, { id, sql, params, maxRows, maxBytes, cellBytes, pageRows = 0, pageBytes = 0 }) {
  const stmt = db.prepare(sql);
  if (!stmt.readonly || !stmt.reader) {
    return { ok: false, error: { code: NOT_READ_ONLY, message: 'the statement is not a read' } };
  }
  stmt.safeIntegers(true);
  const columns = stmt.columns().map(resultColumn);
  const rows = new RowPages({ maxRows, maxBytes, cellBytes, pageRows, pageBytes });
  for (const row of stmt.raw(true).iterate(...params)) {
    const values = /** @type {unknown[]} */ (row);
    const blobsCut = wireRow(values, rows.budget.cellLimit);
    if (!rows.take(values)) break;
    rows.budget.cellsCut += blobsCut;
    if (!rows.full) continue;
    const wait = new Promise((resolve) => {
      written = () => resolve(undefined);
    });
    send({ id, page: rows.next(), columns });
    await wait;
  }
  const { truncated, truncatedBy, cellsCut } = rows.summary();
  return { ok: true, columns, rows: rows.next(), truncated, truncatedBy, cellsCut, rowsAffected: 0 };
}

/**
 * Runs one statement the user consented to, the only time this connection leaves query_only.
 * @param {import('better-sqlite3').Database} db
 * @param {Request} request
 * @returns {Outcome}
 */
function write(db, request) {
  writers.set(request.path, request.owner);
  db.pragma('query_only = OFF');
  try {
    return { ok: true, ...writeStatement(db, request) };
  } finally {
    db.pragma('query_only = ON');
  }
}

/**
 * The statement run as a consented write, answered as `write` answers: its own rows (RETURNING) within
 * the request's budget, and the rows it changed.
 * @param {import('better-sqlite3').Database} db
 * @param {Request} request
 */
function writeStatement(db, request) {
  const stmt = db.prepare(request.sql);
  if (stmt.reader) {
    const before = db.prepare('SELECT total_changes()').pluck().get();
    const result = collect(stmt, request);
    const after = db.prepare('SELECT total_changes()').pluck().get();
    return { ...result, rowsAffected: Number(after) - Number(before) };
  }
  const info = stmt.run(...request.params);
  return { columns: [], rows: [], truncated: false, cellsCut: 0, rowsAffected: info.changes };
}

/**
 * Tries the write `request.plan` describes (db/rehearsal.js) in a transaction that is always rolled back:
 * `BEGIN IMMEDIATE` takes the file's write lock, waiting for another connection's at most the plan's lock
 * wait (`busy_timeout`, set back after); the watchdog ends the process past the budget (the request's
 * `timeoutMs`), which rolls the transaction back too.
 * @param {import('better-sqlite3').Database} db
 * @param {Request} request
 * @returns {Promise<Outcome>}
 */
async function rehearse(db, request) {
  const plan = /** @type {import('../../rehearsal.js').RehearsalPlan} */ (request.plan);
  writers.set(request.path, request.owner);
  const answer = { columns: [], truncated: false, cellsCut: 0, rowsAffected: 0 };
  db.pragma('query_only = OFF');
  try {
    if (!begunWithin(db, plan.lockWaitMs)) return { ok: true, ...answer, rows: [[{ ran: false, stopped: 'lock' }]] };
    const changes = db.prepare('SELECT total_changes()').pluck();
    /** @type {import('../../rehearsal.js').RehearsalRun} */
    const run = async (sql, params, maxRows) => {
      const stmt = db.prepare(sql);
      const before = Number(changes.get());
      if (!stmt.reader) return { columns: [], rows: [], rowsAffected: stmt.run(...params).changes };
      const result = /** @type {{ columns: { name: string }[], rows: unknown[][] }} */ (collect(stmt, { ...request, params, maxRows, rowsAs: 'values' }));
      return { columns: result.columns.map((c) => c.name), rows: result.rows, rowsAffected: Number(changes.get()) - before };
    };
    try {
      return { ok: true, ...answer, rows: [[await rehearseSteps(plan, run)]] };
    } finally {
      db.exec('ROLLBACK');
    }
  } finally {
    db.pragma('query_only = ON');
  }
}

/**
 * `BEGIN IMMEDIATE`, waiting at most `lockWaitMs` for another connection's write lock; false when it
 * was not granted in time. The connection's own busy timeout is set back after.
 * @param {import('better-sqlite3').Database} db
 * @param {number} lockWaitMs
 */
function begunWithin(db, lockWaitMs) {
  const busyTimeout = db.pragma('busy_timeout', { simple: true });
  db.pragma(`busy_timeout = ${Math.ceil(lockWaitMs)}`);
  try {
    db.exec('BEGIN IMMEDIATE');
    return true;
  } catch (error) {
    if (/** @type {{ code?: string }} */ (error).code !== 'SQLITE_BUSY') throw error;
    return false;
  } finally {
    db.pragma(`busy_timeout = ${Number(busyTimeout)}`);
  }
}

/**
 * Runs `steps` (keepSteps.js, restoreSteps.js) in one write transaction, `BEGIN IMMEDIATE` waiting for
 * another connection's write lock as any write does (the busy timeout): committed unless the steps found
 * rows changed since (`restored: false`), rolled back when a statement fails. Answers with one row of one
 * cell, the steps' outcome. The watchdog ends the process past the request's timeout, which rolls back too.
 * @param {import('better-sqlite3').Database} db
 * @param {Request} request
 * @param {(session: import('../../keepSteps.js').KeptSession) => Promise<object>} steps
 * @returns {Promise<Outcome>}
 */
async function keptWriteTransaction(db, request, steps) {
  writers.set(request.path, request.owner);
  db.pragma('query_only = OFF');
  try {
    db.exec('BEGIN IMMEDIATE');
    try {
      const outcome = await steps(keptSession(db, (sql, params) => writeStatement(db, { ...request, sql, params, rowsAs: 'values' })));
      db.exec('restored' in outcome && !outcome.restored ? 'ROLLBACK' : 'COMMIT');
      return { ok: true, columns: [], rows: [[keptAhead(request.id, outcome)]], truncated: false, cellsCut: 0, rowsAffected: 0 };
    } finally {
      // A failed statement leaves the transaction open (or SQLite ended it already): nothing of it stays.
      if (db.inTransaction) db.exec('ROLLBACK');
    }
  } finally {
    db.pragma('query_only = ON');
  }
}

/**
 * The steps' outcome with its kept rows sent ahead in pieces (queryProcessMessages.js `KeptPiece`).
 * @param {number} id
 * @param {object} outcome
 */
function keptAhead(id, outcome) {
  const { kept } = /** @type {{ kept?: import('../../keptWrites.js').KeptRows }} */ (outcome);
  if (!kept) return outcome;
  for (const piece of keptPieces(id, kept)) send(piece);
  return { ...outcome, kept: withoutRows(kept) };
}

/**
 * The rows of `restore` requests sent ahead of them, by request id (queryProcessMessages.js `KeptPiece`).
 * @type {Map<number, import('./queryProcessMessages.js').KeptPiece[]>}
 */
const piecesAhead = new Map();

/**
 * The restore plan of `request` with the rows sent ahead of it.
 * @param {Request} request
 */
function restoreWithRows(request) {
  const plan = /** @type {RestoreStepsPlan} */ (request.restore);
  const rows = withoutRows(plan.rows);
  for (const piece of piecesAhead.get(request.id) ?? []) joinKeptPiece(rows, piece);
  piecesAhead.delete(request.id);
  return { ...plan, rows };
}

// The running statement's own deadline (ms since the epoch; 0 while idle), read by the watchdog.
const deadline = new BigInt64Array(new SharedArrayBuffer(8));
new Worker(new URL('./watchdog.js', import.meta.url), {
  workerData: { deadline, parent: process.ppid, pollMs: 100 },
}).unref();

/** How SQLite words a statement it cannot parse; its other refusals (`no such table: …`) share the code SQLITE_ERROR. */
const SYNTAX_ERROR = /syntax error|^incomplete input$|^unrecognized token/;

/**
 * Prepares the statement and runs nothing: a statement SQLite cannot parse is `does_not_prepare`; one
 * whose names SQLite cannot resolve fails as it would when run.
 * @param {import('better-sqlite3').Database} db
 * @param {Request} request
 * @returns {Outcome}
 */
function check(db, request) {
  try {
    db.prepare(request.sql);
  } catch (error) {
    const { code = 'SQLITE_ERROR', message } = /** @type {{ code?: string, message: string }} */ (error);
    return { ok: false, error: { code: SYNTAX_ERROR.test(message) ? DOES_NOT_PREPARE : code, message } };
  }
  return { ok: true, columns: [], rows: [], truncated: false, cellsCut: 0, rowsAffected: 0 };
}

/**
 * Exact row counts, one per statement of `counts`, in order, for at most `budgetMs` in all: the count
 * running when the budget passes is stopped mid-table, and it and every one after it is null.
 * @param {import('better-sqlite3').Database} db
 * @param {Request} request
 * @returns {Outcome}
 */
function count(db, { counts = [], budgetMs = 0 }) {
  /** @type {unknown[][]} */
  const rows = [];
  countDeadline = performance.now() + budgetMs;
  countedRows = 0;
  try {
    for (const sql of counts) {
      const stmt = db.prepare(sql).pluck();
      if (!stmt.readonly) return { ok: false, error: { code: NOT_READ_ONLY, message: 'the statement is not a read' } };
      if (performance.now() > countDeadline) rows.push([null]);
      else rows.push([countOf(stmt)]);
    }
  } finally {
    countDeadline = 0;
  }
  return { ok: true, columns: [{ name: 'count', type: 'INTEGER' }], rows, truncated: false, cellsCut: 0, rowsAffected: 0 };
}

/**
 * One count, or null when the budget stopped it.
 * @param {import('better-sqlite3').Statement} stmt
 */
function countOf(stmt) {
  try {
    return Number(stmt.get());
  } catch (error) {
    if (error instanceof CountStopped) return null;
    throw error;
  }
}

/**
 * The outcome of one request on this process's connection to its file (a held read's, on its own).
 * @param {Request} request
 * @returns {Promise<Outcome>}
 */
async function answer(request) {
  if (request.mode === 'next') return nextPage(request);
  if (request.mode === 'release') {
    release();
    return { ok: true, columns: [], rows: [], truncated: false, cellsCut: 0, rowsAffected: 0 };
  }
  const db = connection(request.path, request.owner);
  switch (request.mode) {
    case 'hold':
      return hold(db, request);
    case 'pages':
      return pages(db, request);
    case 'write':
      return write(db, request);
    case 'check':
      return check(db, request);
    case 'count':
      return count(db, request);
    case 'rehearse':
      return rehearse(db, request);
    case 'keep':
      return keptWriteTransaction(db, request, (session) => keepSteps(/** @type {KeepStepsPlan} */ (request.keep), session));
    case 'restore':
      return keptWriteTransaction(db, request, (session) => restoreSteps(restoreWithRows(request), session));
    default:
      return read(db, request);
  }
}

process.on(
  'message',
  async (/** @type {import('./queryProcessMessages.js').PoolMessage} */ message) => {
    if (isCloseFile(message)) {
      closeFile(message.close);
      return;
    }
    if (isPageWritten(message)) {
      written();
      return;
    }
    if (isKeptPiece(message)) {
      const pieces = piecesAhead.get(message.id) ?? [];
      pieces.push(message);
      piecesAhead.set(message.id, pieces);
      return;
    }
    const request = message;
    /** @type {Outcome} */
    let reply;
    Atomics.store(deadline, 0, BigInt(Date.now() + (request.timeoutMs ?? 0) + DATABASES.deadlineGraceMs));
    try {
      reply = await answer(request);
    } catch (error) {
      const err = /** @type {{ message?: string, code?: string }} */ (error);
      reply = {
        ok: false,
        error: { code: err.code ?? 'SQLITE_ERROR', message: err.message ?? String(error) },
      };
    }
    // A held read that failed or was read to its end is ended before the process goes back to the pool.
    if ((request.mode === 'hold' || request.mode === 'next') && !(reply.ok && reply.more)) release();
    Atomics.store(deadline, 0, 0n);
    piecesAhead.delete(request.id);
    // The pool replaces a process that holds more than its threshold once it has answered.
    send({ id: request.id, rss: process.memoryUsage.rss(), ...reply });
  },
);
// The parent is gone, or let this process go: nothing will read our answers.
process.on('disconnect', () => {
  for (const db of connections.values()) db.close();
  process.exit(0);
});
