import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import PQueue from 'p-queue';
import { ErrorCode, ProtocolError, ToolError } from '../../core/errors.js';
import { JsonRows, type ResultSet, type Rows } from '../database.js';
import { DriverFailure } from '../driverFailure.js';
import { DATABASES } from '../../core/contract.js';
import { type AppClock, systemClock } from '../../core/clock.js';

export type SqliteStatement = {
  /** `check` prepares the statement and runs nothing. */
  mode: 'read' | 'write' | 'check';
  sql: string;
  params: unknown[];
  maxRows: number;
  maxBytes: number;
  cellBytes?: number;
  rowsAs?: 'values' | 'json';
};

type Reply =
  | ({ id: number; ok: true } & Omit<ResultSet, 'rows'> & ({ rows: unknown[][] } | { rowsJson: string; rowCount: number }))
  | { id: number; ok: false; error: { code: string; message: string } }
  /** JSON rows sent ahead of the reply (see queryProcess.js). */
  | { id: number; rowsChunk: string };

/** One JSON array of every row, from the arrays sent ahead and the reply's. */
function joinedRows(chunks: string[], last: string): string {
  const parts = [...chunks, last].map((chunk) => chunk.slice(1, -1)).filter((inner) => inner.length > 0);
  return `[${parts.join(',')}]`;
}

const UNREACHABLE_CODES = new Set(['SQLITE_CANTOPEN', 'SQLITE_NOTADB', 'SQLITE_CORRUPT', 'SQLITE_ABORT']);

/** An error SQLite raised for a statement (`code` is SQLite's, or the query process's `not_read_only`). */
function sqliteFailure(code: string, message: string): DriverFailure | ToolError {
  if (code === 'does_not_prepare') return new ToolError('invalid_argument', `the statement is not valid: ${message}`);
  const kind = code === 'not_read_only' ? 'not_read_only' : UNREACHABLE_CODES.has(code) ? 'not_connected' : 'query_failed';
  return new DriverFailure(kind, message, [], code);
}

const QUERY_PROCESS = fileURLToPath(new URL('./queryProcess.js', import.meta.url));
/** How V8 ends a process out of heap (abort: SIGABRT, or exit code 134 through some shells). */
const OUT_OF_MEMORY_EXIT = 134;

/**
 * A few child processes, each with its own read connection to one SQLite file, so queries run off the
 * event loop. A statement that is cancelled or runs past its deadline takes its process with it: the
 * process is killed at once (SQLite stops mid-step) and a fresh one is started for the next statement.
 */
export class SqliteProcessPool {
  readonly #path: string;
  readonly #queue: PQueue;
  readonly #idle: ChildProcess[] = [];
  readonly #busy = new Set<ChildProcess>();
  readonly #clock: AppClock;
  #nextId = 1;

  constructor(path: string, size: number, clock: AppClock = systemClock) {
    this.#path = path;
    this.#clock = clock;
    this.#queue = new PQueue({ concurrency: size });
  }

  run(request: SqliteStatement, signal: AbortSignal, timeoutMs: number): Promise<ResultSet<Rows>> {
    return this.#queue.add(() => this.#run(request, signal, timeoutMs), { signal });
  }

  async close(): Promise<void> {
    this.#queue.clear();
    const children = [...this.#idle, ...this.#busy];
    this.#idle.length = 0;
    this.#busy.clear();
    await Promise.all(children.map(kill));
  }

  #spawn(): ChildProcess {
    const child = fork(QUERY_PROCESS, [this.#path, String(DATABASES.sqliteBusyTimeoutMs)], {
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      execArgv: [`--max-old-space-size=${DATABASES.sqliteHeapMb}`],
    });
    child.unref();
    child.channel?.unref();
    return child;
  }

  #run(request: SqliteStatement, signal: AbortSignal, timeoutMs: number): Promise<ResultSet<Rows>> {
    signal.throwIfAborted();
    const child = this.#idle.pop() ?? this.#spawn();
    this.#busy.add(child);
    child.channel?.ref();
    const id = this.#nextId++;

    return new Promise<ResultSet<Rows>>((resolve, reject) => {
      const settle = (keep: boolean) => {
        this.#clock.clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        child.off('message', onMessage);
        child.off('error', onError);
        child.off('exit', onExit);
        child.channel?.unref();
        this.#busy.delete(child);
        if (keep) this.#idle.push(child);
        else void kill(child);
      };
      const chunks: string[] = [];
      const onMessage = (reply: Reply) => {
        if (reply.id !== id) return;
        if ('rowsChunk' in reply) {
          chunks.push(reply.rowsChunk);
          return;
        }
        settle(true);
        if (reply.ok) {
          const rows = 'rowsJson' in reply ? new JsonRows(joinedRows(chunks, reply.rowsJson), reply.rowCount) : reply.rows;
          const { columns, truncated, truncatedBy, cellsCut, rowsAffected } = reply;
          resolve({ columns, rows, truncated, ...(truncatedBy ? { truncatedBy } : {}), cellsCut: cellsCut ?? 0, rowsAffected });
        } else reject(sqliteFailure(reply.error.code, reply.error.message));
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
        // A process that ran out of memory on one statement dies of it (the server does not).
        const outOfMemory = code === OUT_OF_MEMORY_EXIT || signalName === 'SIGABRT' || signalName === 'SIGTRAP';
        reject(
          outOfMemory
            ? new DriverFailure('query_failed', `the statement needed more than the query process's ${DATABASES.sqliteHeapMb} MB of memory; select less (fewer rows or shorter values)`)
            : sqliteFailure('SQLITE_CANTOPEN', 'the database process stopped; is the file readable?'),
        );
      };
      const timer = this.#clock.setTimeout(() => {
        settle(false);
        reject(
          new ProtocolError(
            ErrorCode.RequestTimeout,
            `The statement ran past its ${timeoutMs / 1000} s timeout`,
          ),
        );
      }, timeoutMs);

      signal.addEventListener('abort', onAbort, { once: true });
      child.on('message', onMessage);
      child.once('error', onError);
      child.once('exit', onExit);
      child.send({ id, timeoutMs, ...request });
    });
  }
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
