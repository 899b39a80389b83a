import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { JsonRows, type PageReader, type ResultSet, type Rows } from '../../database.js';
import { DriverFailure, statementTimeout } from '../../driverFailure.js';
import { sqliteFailureKind } from '../../failureKinds.js';
import { DATABASES } from '../../../core/contract.js';
import { type AppClock, systemClock } from '../../../core/clock.js';
import type { SqlitePoolSettings } from './poolSettings.js';
import { sessionOwner } from '../../connections/sessionOwner.js';
import {
  closeFile,
  DOES_NOT_PREPARE,
  isKeptPiece,
  isPage,
  isRowsChunk,
  joinKeptPiece,
  keptPieces,
  type PoolMessage,
  type ProcessMessage,
  pageWritten,
  processArgv,
  type StatementRequest,
  withoutRows,
} from './queryProcessMessages.js';
import { nextTurn } from '../../../core/nextTurn.js';
import type { KeptRows } from '../../keptWrites.js';

/** A statement as a connection hands it to the pool: the pool adds its id, file, owner and timeout. */
export type SqliteStatement = Omit<StatementRequest, 'id' | 'path' | 'owner' | 'timeoutMs'>;

/** Rows sent in one message: a JSON array, and the same rows' escaped text lines. */
type Chunk = { json: string; lines: string };

/**
 * Every row, from the chunks sent ahead and the reply's: one JSON array, and the escaped text lines
 * with an escaped line break between two. Concatenated, not joined: the text is copied once, when the
 * response is written.
 */
function joinedRows(chunks: Chunk[], rowCount: number): JsonRows {
  const sent = chunks.filter((chunk) => chunk.json !== '[]');
  return JsonRows.joined(
    sent.map((chunk) => chunk.json.slice(1, -1)),
    sent.map((chunk) => chunk.lines),
    rowCount,
  );
}

/** An error SQLite raised for a statement (`code` is SQLite's, or the query process's `not_read_only`). */
function sqliteFailure(code: string, message: string): DriverFailure {
  if (code === DOES_NOT_PREPARE) return new DriverFailure('invalid_argument', `the statement is not valid: ${message}`);
  return new DriverFailure(sqliteFailureKind(code), message, [], code);
}

const QUERY_PROCESS = fileURLToPath(new URL('./queryProcess.js', import.meta.url));
/** How V8 ends a process out of heap (abort: SIGABRT, or exit code 134 through some shells). */
const OUT_OF_MEMORY_EXIT = 134;

/** One connection's use of the pool: its statements, and closing its file in every process. */
export type SqliteFile = {
  /**
   * Runs a statement; in `pages` mode each full page goes to `onPage`, the process reading on once it
   * has settled, and the reply's rows are the last page.
   */
  run(request: SqliteStatement, signal: AbortSignal, timeoutMs: number, onPage?: PageReader): Promise<ResultSet<Rows>>;
  /**
   * Runs a read's first page (`hold` mode); when rows remain (`more`) its process stays out of the pool,
   * the statement open on it, for `process` to read on and release.
   */
  hold(request: SqliteStatement, signal: AbortSignal, timeoutMs: number): Promise<Exchanged & { process?: HeldProcess }>;
  /** Ends its waiting statements and, once no other connection uses the path, closes the file everywhere. */
  close(): void;
};

/** A statement's result and, for a held read, whether rows remain (`more`). */
export type Exchanged = { result: ResultSet<Rows>; more: boolean };

/** A process kept out of the pool for a held read: its next pages, then its release back to the pool. */
export type HeldProcess = {
  next(request: SqliteStatement, signal: AbortSignal, timeoutMs: number): Promise<Exchanged>;
  /** Ends the read (its iterator, its transaction) and gives the process back; nothing when it is gone already. */
  release(): Promise<void>;
};

type Handle = { path: string; closed: boolean; running: number };
type Waiter = { handle: Handle; take(child: ChildProcess): void; fail(error: unknown): void };

const closedFailure = () => new DriverFailure('not_connected', 'the connection was closed');

/**
 * The application's child processes that run SQLite statements, off the event loop, for every SQLite
 * connection: each process keeps read connections to the files it served last, so any process can
 * serve any file. A statement that is cancelled or runs past its deadline takes its process with it:
 * the process is killed at once (SQLite stops mid-step) and the next statement gets another one. One
 * process is kept alive while the pool is open (after `warm()`), more start on demand up to `size` and
 * go again after a minute without work, and a process that grew past the memory threshold is let go
 * once it has answered.
 */
export class SqliteProcessPool {
  readonly size: number;
  readonly #settings: SqlitePoolSettings;
  readonly #clock: AppClock;
  readonly #idle: ChildProcess[] = [];
  readonly #busy = new Set<ChildProcess>();
  /** Processes let go for their memory, still closing their files. */
  readonly #leaving = new Set<ChildProcess>();
  readonly #waiting: Waiter[] = [];
  /** Open connections per path: a file is closed in every process when its last one closes. */
  readonly #paths = new Map<string, number>();
  /** Processes kept out of the pool for held reads: at most `size - 1`, so one always serves everyone else. */
  #held = 0;
  #closed = false;
  #nextId = 1;
  #trimTimer: unknown;

  constructor(settings: SqlitePoolSettings, clock: AppClock = systemClock) {
    this.size = settings.processes;
    this.#settings = settings;
    this.#clock = clock;
  }

  /** Starts a process now, unless one is alive, so that the first statement does not wait for one to start. */
  warm(): void {
    if (!this.#closed && this.#live() === 0) this.#idle.push(this.#spawn());
  }

  /** One connection's way into the pool, for the SQLite file at `path`. */
  file(path: string): SqliteFile {
    const handle: Handle = { path, closed: false, running: 0 };
    this.#paths.set(path, (this.#paths.get(path) ?? 0) + 1);
    return {
      run: (request, signal, timeoutMs, onPage) =>
        handle.closed || this.#closed ? Promise.reject(closedFailure()) : this.#run(handle, request, signal, timeoutMs, onPage),
      hold: (request, signal, timeoutMs) =>
        handle.closed || this.#closed ? Promise.reject(closedFailure()) : this.#hold(handle, request, signal, timeoutMs),
      close: () => this.#closeHandle(handle),
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#trimTimer !== undefined) this.#clock.clearTimeout(this.#trimTimer);
    for (const waiter of this.#waiting.splice(0)) waiter.fail(closedFailure());
    const children = [...this.#idle, ...this.#busy, ...this.#leaving];
    this.#idle.length = 0;
    this.#busy.clear();
    this.#leaving.clear();
    await Promise.all(children.map(kill));
  }

  #live(): number {
    return this.#idle.length + this.#busy.size;
  }

  #spawn(): ChildProcess {
    const argv = processArgv({ busyTimeoutMs: DATABASES.sqliteBusyTimeoutMs, filesPerProcess: this.#settings.filesPerProcess });
    const child = fork(QUERY_PROCESS, argv, {
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      execArgv: [`--max-old-space-size=${DATABASES.sqliteHeapMb}`],
    });
    child.unref();
    child.channel?.unref();
    // A process that dies while idle (or while leaving) is dropped; one running a statement fails it.
    child.once('exit', () => {
      const at = this.#idle.indexOf(child);
      if (at >= 0) this.#idle.splice(at, 1);
      this.#leaving.delete(child);
    });
    // Sending to a process that just died fails the statement through `exit`; nothing else to do here.
    child.on('error', () => undefined);
    return child;
  }

  #closeHandle(handle: Handle): void {
    if (handle.closed) return;
    handle.closed = true;
    for (const waiter of this.#waiting.filter((w) => w.handle === handle)) {
      this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
      waiter.fail(closedFailure());
    }
    const left = (this.#paths.get(handle.path) ?? 1) - 1;
    if (left > 0) {
      this.#paths.set(handle.path, left);
      return;
    }
    this.#paths.delete(handle.path);
    // A busy process reads this after its statement: messages are handled in order.
    for (const child of [...this.#idle, ...this.#busy]) {
      if (child.connected) child.send(closeFile(handle.path) satisfies PoolMessage, () => undefined);
    }
  }

  async #run(handle: Handle, request: SqliteStatement, signal: AbortSignal, timeoutMs: number, onPage?: PageReader): Promise<ResultSet<Rows>> {
    signal.throwIfAborted();
    const owner = sessionOwner();
    const child = await this.#acquire(handle, signal);
    return (await this.#statement(child, handle, request, owner, signal, timeoutMs, { onPage })).result;
  }

  async #hold(handle: Handle, request: SqliteStatement, signal: AbortSignal, timeoutMs: number): Promise<Exchanged & { process?: HeldProcess }> {
    signal.throwIfAborted();
    const owner = sessionOwner();
    const child = await this.#acquire(handle, signal);
    // The pool is shared by every SQLite connection: past `size - 1` held, a read is read whole, with no rest.
    const mode = this.#held < this.size - 1 ? 'hold' : 'read';
    const first = await this.#statement(child, handle, { ...request, mode }, owner, signal, timeoutMs, { held: true });
    if (!first.more) return first;
    this.#held += 1;
    let open = true;
    const ended = () => {
      if (open) this.#held -= 1;
      open = false;
    };
    const next: HeldProcess['next'] = async (page, pageSignal, pageTimeoutMs) => {
      try {
        const read = await this.#statement(child, handle, { ...page, mode: 'next' }, owner, pageSignal, pageTimeoutMs, { held: true });
        // A page that ends the read gives the process back: nothing is held after it.
        if (!read.more) ended();
        return read;
      } catch (error) {
        // A page that fails took its process with it or gave it back.
        ended();
        throw error;
      }
    };
    const release = async () => {
      if (!open) return;
      ended();
      if (this.#closed || child.exitCode !== null || child.signalCode !== null) return;
      const ending = { mode: 'release' as const, sql: '', params: [], maxRows: 0, maxBytes: 0 };
      await this.#statement(child, handle, ending, owner, new AbortController().signal, DATABASES.introspectionTimeoutMs).catch(() => undefined);
    };
    return { ...first, process: { next, release } };
  }

  /** An idle process, a new one while there are fewer than `size`, or else the next one freed. */
  #acquire(handle: Handle, signal: AbortSignal): Promise<ChildProcess> | ChildProcess {
    if (this.#waiting.length === 0) {
      const idle = this.#idle.pop();
      if (idle) return this.#grant(handle, idle);
      if (this.#live() < this.size) return this.#grant(handle, this.#spawn());
    }
    return new Promise<ChildProcess>((resolve, reject) => {
      const onAbort = () => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        reject(signal.reason);
      };
      const waiter: Waiter = {
        handle,
        take: (child) => {
          signal.removeEventListener('abort', onAbort);
          resolve(child);
        },
        fail: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #grant(handle: Handle, child: ChildProcess): ChildProcess {
    this.#busy.add(child);
    handle.running += 1;
    return child;
  }

  /** The waiter whose connection runs the fewest statements now (the oldest among equals). */
  #nextWaiter(): Waiter | undefined {
    let next: Waiter | undefined;
    for (const waiter of this.#waiting) if (!next || waiter.handle.running < next.handle.running) next = waiter;
    if (next) this.#waiting.splice(this.#waiting.indexOf(next), 1);
    return next;
  }

  /** Hands `child` to the next waiter, or keeps it idle. */
  #free(child: ChildProcess): void {
    const waiter = this.#nextWaiter();
    if (waiter) {
      waiter.take(this.#grant(waiter.handle, child));
      return;
    }
    this.#idle.push(child);
    if (this.#live() > 1) this.#scheduleTrim();
  }

  /**
   * Past a burst, the processes beyond the one kept warm go once none of them has served a statement for
   * `DATABASES.sqliteIdleProcessMs`: a pool that idles all day holds one process, not `size`.
   */
  #scheduleTrim(): void {
    if (this.#trimTimer !== undefined) this.#clock.clearTimeout(this.#trimTimer);
    this.#trimTimer = this.#clock.setTimeout(() => {
      this.#trimTimer = undefined;
      while (this.#idle.length > 0 && this.#live() > 1) {
        // The longest idle first: `#run` takes the most recently freed.
        const child = this.#idle.shift() as ChildProcess;
        this.#leaving.add(child);
        if (child.connected) child.disconnect();
      }
    }, DATABASES.sqliteIdleProcessMs);
  }

  /** After a process was killed or let go: a new one for the next waiter, or to keep one alive. */
  #replace(): void {
    if (this.#closed) return;
    const waiter = this.#nextWaiter();
    if (waiter) waiter.take(this.#grant(waiter.handle, this.#spawn()));
    else this.warm();
  }

  /** The statement has ended on `child`: it is kept, let go for its memory (`rss` past the threshold), or killed. */
  #settled(child: ChildProcess, handle: Handle, keep: boolean, rss = 0): void {
    this.#busy.delete(child);
    handle.running -= 1;
    if (this.#closed) {
      void kill(child);
      return;
    }
    if (keep && rss <= this.#settings.recycleRssBytes) {
      this.#free(child);
      return;
    }
    if (keep) {
      // Idle now: it closes its files and exits on its own (queryProcess.js, `disconnect`).
      this.#leaving.add(child);
      if (child.connected) child.disconnect();
    } else void kill(child);
    this.#replace();
  }

  // eslint-disable-next-line max-lines-per-function -- one statement's listeners (reply, abort, error, exit, timer) share `settled` and `settle`, which end them all at once
  #statement(
    child: ChildProcess,
    handle: Handle,
    request: SqliteStatement,
    owner: string,
    signal: AbortSignal,
    timeoutMs: number,
    { onPage, held = false }: { onPage?: PageReader; held?: boolean } = {},
  ): Promise<Exchanged> {
    child.channel?.ref();
    const id = this.#nextId++;

    // eslint-disable-next-line max-lines-per-function -- as #statement's: the listeners below share `settled` and `settle`
    return new Promise<Exchanged>((resolve, reject) => {
      let settled = false;
      /** `stays`: the statement is held open on `child`, which stays out of the pool. */
      const settle = (keep: boolean, rss?: number, stays = false) => {
        settled = true;
        this.#clock.clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        child.off('message', onMessage);
        child.off('error', onError);
        child.off('exit', onExit);
        child.channel?.unref();
        if (!stays) this.#settled(child, handle, keep, rss);
      };
      const chunks: Chunk[] = [];
      const kept: KeptRows = { columns: [], keys: [], before: [], after: [] };
      let pieced = false;
      const onMessage = (reply: ProcessMessage) => {
        if (reply.id !== id) return;
        if (isKeptPiece(reply)) {
          joinKeptPiece(kept, reply);
          pieced = true;
          return;
        }
        if (isRowsChunk(reply)) {
          chunks.push({ json: reply.rowsChunk, lines: reply.linesChunk });
          return;
        }
        if (isPage(reply)) {
          // A page that cannot be written ends the read: the process is stopped mid-statement.
          (onPage?.(reply.page, reply.columns) ?? Promise.resolve()).then(
            () => {
              if (!settled) child.send(pageWritten(id) satisfies PoolMessage, () => undefined);
            },
            (error: unknown) => {
              if (settled) return;
              settle(false);
              reject(error);
            },
          );
          return;
        }
        const more = held && reply.ok && reply.more === true;
        settle(true, reply.rss, more);
        if (reply.ok) resolve({ result: withKeptRows(resultOf(reply, chunks), pieced ? kept : undefined), more });
        else reject(sqliteFailure(reply.error.code, reply.error.message));
      };
      const onAbort = () => {
        settle(false);
        reject(signal.reason);
      };
      const onError = (error: Error) => {
        settle(false);
        reject(sqliteFailure('SQLITE_CANTOPEN', error.message));
      };
      const onExit = (code: number | null, signalName: string | null) => {
        settle(false);
        reject(exitFailure(code, signalName));
      };
      const timer = this.#clock.setTimeout(() => {
        settle(false);
        reject(statementTimeout(`The statement ran past its ${timeoutMs / 1000} s timeout`));
      }, timeoutMs);

      if (signal.aborted) {
        settle(true);
        reject(signal.reason);
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      child.on('message', onMessage);
      child.once('error', onError);
      child.once('exit', onExit);
      void sendInPieces(child, { id, timeoutMs, path: handle.path, owner, ...request }, () => settled);
    });
  }
}

/**
 * Sends `request`, a `restore`'s kept rows ahead of it in pieces (queryProcessMessages.js `KeptPiece`),
 * the event loop given a turn after each; stops when the statement is `over` (settled) meanwhile.
 */
async function sendInPieces(child: ChildProcess, request: StatementRequest, over: () => boolean): Promise<void> {
  if (request.mode !== 'restore' || !request.restore) {
    child.send(request satisfies PoolMessage);
    return;
  }
  for (const piece of keptPieces(request.id, request.restore.rows)) {
    child.send(piece satisfies PoolMessage);
    await nextTurn();
    if (over()) return;
  }
  child.send({ ...request, restore: { ...request.restore, rows: withoutRows(request.restore.rows) } } satisfies PoolMessage);
}

/** A kept write's outcome (the one cell of a `keep` or `restore` reply) with its kept rows sent ahead of it. */
function withKeptRows(result: ResultSet<Rows>, kept: KeptRows | undefined): ResultSet<Rows> {
  const outcome = (result.rows as unknown[][])[0]?.[0] as { kept?: KeptRows } | undefined;
  if (!kept || !outcome?.kept) return result;
  return { ...result, rows: [[{ ...outcome, kept: { ...outcome.kept, before: kept.before, after: kept.after } }]] };
}

/** A statement's result from its process's reply, with the rows sent ahead of it. */
function resultOf(reply: Extract<ProcessMessage, { ok: true }>, chunks: Chunk[]): ResultSet<Rows> {
  const rows = 'rowsJson' in reply ? joinedRows([...chunks, { json: reply.rowsJson, lines: reply.linesJson }], reply.rowCount) : reply.rows;
  const { columns, truncated, truncatedBy, cellsCut, columnsLeftOut, rowsAffected } = reply;
  return { columns, rows, truncated, ...(truncatedBy ? { truncatedBy } : {}), cellsCut: cellsCut ?? 0, ...(columnsLeftOut ? { columnsLeftOut } : {}), rowsAffected };
}

/** Why a process stopped mid-statement: one that ran out of memory on it dies of it (the server does not). */
function exitFailure(code: number | null, signalName: string | null): DriverFailure {
  const outOfMemory = code === OUT_OF_MEMORY_EXIT || signalName === 'SIGABRT' || signalName === 'SIGTRAP';
  return outOfMemory
    ? new DriverFailure('query_failed', `the statement needed more than the query process's ${DATABASES.sqliteHeapMb} MB of memory; select less (fewer rows or shorter values)`)
    : sqliteFailure('SQLITE_CANTOPEN', 'the database process stopped; is the file readable?');
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
