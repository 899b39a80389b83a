// A child process that owns one read connection to one SQLite file. Plain JavaScript so the same file
// serves `src/` (tests) and `dist/`. A process, not a worker thread: a statement busy inside SQLite
// cannot be interrupted from another thread, but a process can always be killed (see docs/design.md).
import Database from 'better-sqlite3';

const [path, busyTimeoutMs] = process.argv.slice(2);
const db = new Database(/** @type {string} */ (path), {
  fileMustExist: true,
  timeout: Number(busyTimeoutMs),
});
db.pragma('foreign_keys = ON');
db.pragma('query_only = ON');

/** @param {unknown} value */
function toWire(value) {
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (value instanceof Uint8Array) return `0x${Buffer.from(value).toString('hex')}`;
  return value;
}

/**
 * Runs one read. SQLite itself is the last word on "read": a statement it does not call read-only, or
 * that returns no rows (transaction control, pragma assignments), is refused here.
 * @param {{ sql: string, params: unknown[], maxRows: number }} request
 */
function read({ sql, params, maxRows }) {
  const stmt = db.prepare(sql);
  if (!stmt.readonly || !stmt.reader) {
    return { ok: false, error: { code: 'not_read_only', message: 'the statement is not a read' } };
  }
  stmt.safeIntegers(true);
  const columns = stmt.columns().map((c) => ({ name: c.name, type: c.type ?? '' }));
  const rows = [];
  let truncated = false;
  for (const row of stmt.raw(true).iterate(...params)) {
    if (rows.length === maxRows) {
      truncated = true;
      break;
    }
    rows.push(/** @type {unknown[]} */ (row).map(toWire));
  }
  return { ok: true, columns, rows, truncated };
}

process.on(
  'message',
  (/** @type {{ id: number, sql: string, params: unknown[], maxRows: number }} */ request) => {
    let reply;
    try {
      reply = read(request);
    } catch (error) {
      const err = /** @type {{ message?: string, code?: string }} */ (error);
      reply = {
        ok: false,
        error: { code: err.code ?? 'SQLITE_ERROR', message: err.message ?? String(error) },
      };
    }
    process.send?.({ id: request.id, ...reply });
  },
);
// The parent is gone: nothing will read our answers.
process.on('disconnect', () => process.exit(0));
