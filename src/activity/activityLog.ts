import { DAY_MS } from '../core/clock.js';
import { APPLICATION } from '../core/contract.js';
import { chmodSync } from 'node:fs';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { redact } from '../db/redact.js';
import { chainWriter, GENESIS, rowHash, sha256 } from './activityChain.js';
import { tally, type TokenUsage, type UsageRow } from './tokenUsage.js';
import { CLOSE, newProgress, PROGRESS, type ProgressSlot, type WriterData, type WriterMessage } from './writerProgress.js';

export const ACTIVITY_FILE = 'activity.sqlite';

export const ACTIVITY_CATEGORIES = ['auth', 'access', 'admin', 'query', 'tool', 'resource'] as const;
export type ActivityCategory = (typeof ACTIVITY_CATEGORIES)[number];

export const ACTIVITY_OUTCOMES = ['success', 'denied', 'error', 'rateLimited'] as const;
export type ActivityOutcome = (typeof ACTIVITY_OUTCOMES)[number];

/**
 * One event to record. Callers pass token ids and names, never token plaintext, verifiers or
 * passwords; `error` and string `detail` values are also redacted as a second line of defence.
 */
export type ActivityEntry = {
  category: ActivityCategory;
  action: string;
  outcome: ActivityOutcome;
  tokenId?: string;
  tokenName?: string;
  clientName?: string;
  connectionId?: string;
  /** Only its SHA-256 digest is stored, never the text. */
  statement?: string;
  durationMs?: number;
  rows?: number;
  error?: string;
  trace?: { traceparent?: string; tracestate?: string; baggage?: string };
  detail?: Record<string, string | number | boolean>;
};

export type ActivityRow = {
  seq: number;
  time: string;
  category: ActivityCategory;
  action: string;
  outcome: ActivityOutcome;
  token_id: string | null;
  token_name: string | null;
  client_name: string | null;
  connection_id: string | null;
  statement_sha256: string | null;
  duration_ms: number | null;
  rows: number | null;
  error: string | null;
  traceparent: string | null;
  tracestate: string | null;
  baggage: string | null;
  /** JSON object. */
  detail: string | null;
  prev_hash: string;
  hash: string;
};

export type ActivityListOptions = {
  limit?: number;
  category?: ActivityCategory;
  outcome?: ActivityOutcome;
  tokenId?: string;
  /** ISO time: only rows at or after it. */
  since?: string;
  /** Text found in the client, token, action or connection. */
  search?: string;
};

/** A client as the activity log has seen it: by its name and the token it used. */
export type SeenClient = { client: string; token: string | null; lastSeen: string; requests: number };

export type ActivityVerifyResult = { ok: true; rows: number } | { ok: false; brokenAt: number };

/** How long a read waits for the writer thread to commit what was recorded before it. */
const WRITER_WAIT_MS = 30_000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS activity (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  time TEXT NOT NULL, -- ISO 8601, UTC
  category TEXT NOT NULL,
  action TEXT NOT NULL,
  outcome TEXT NOT NULL,
  token_id TEXT,
  token_name TEXT,
  client_name TEXT,
  connection_id TEXT,
  statement_sha256 TEXT,
  duration_ms REAL,
  "rows" INTEGER,
  error TEXT,
  traceparent TEXT,
  tracestate TEXT,
  baggage TEXT,
  detail TEXT,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS activity_time ON activity (time);
-- The prev_hash the first remaining row must carry once older rows have been pruned.
CREATE TABLE IF NOT EXISTS activity_anchor (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  prev_hash TEXT NOT NULL
);
`;

function redactDetail(detail: ActivityEntry['detail']): string | null {
  if (!detail) return null;
  const entries = Object.entries(detail).map(([k, v]) => [k, typeof v === 'string' ? redact(v) : v]);
  return JSON.stringify(Object.fromEntries(entries));
}

/** A row as the log hands it to the writer thread, which adds `seq`, `prev_hash` and `hash`. */
type PendingRow = Omit<ActivityRow, 'seq' | 'prev_hash' | 'hash'>;

/** The columns whose text can come from a client. */
const TEXT_COLUMNS = ['action', 'token_name', 'client_name', 'connection_id', 'error', 'traceparent', 'tracestate', 'baggage', 'detail'] as const;

/**
 * The hash-chained activity log (one SQLite file, mode 0600); rows past retention are pruned on open.
 * Rows are chained and inserted by a writer thread, one transaction per turn of the event loop, so that
 * recording costs a request almost nothing; every read first waits until what was recorded is written.
 */
export class ActivityLog {
  readonly #db: Database.Database;
  readonly #path: string;
  readonly #now: () => number;
  #pending: PendingRow[] = [];
  /** Batches handed to the writer thread; `#progress` is what it has done (see activityWriter.js). */
  #posted = 0;
  readonly #progress = newProgress();
  #writer: { worker: Worker; failures: MessagePort } | undefined;
  /** Set once the writer thread is gone: rows are then written on this thread. */
  #writeHere: ((rows: PendingRow[]) => void) | undefined;
  /** A write that failed on this thread, for the next read to report. */
  #failure: string | undefined;
  /** Each token's usage, counted from the file once asked for, then kept up to date by `record`. */
  #usage: Map<string, TokenUsage> | undefined;

  private constructor(db: Database.Database, path: string, now: () => number) {
    this.#db = db;
    this.#path = path;
    this.#now = now;
  }

  static open(path: string, options: { now?: () => number; retentionDays?: number } = {}): ActivityLog {
    const db = new Database(path);
    // Before WAL is on: SQLite gives the -wal and -shm files the database file's mode.
    chmodSync(path, 0o600);
    db.pragma('journal_mode = WAL');
    // As in the writer thread (see activityWriter.js), for the writes this connection may have to make.
    db.pragma('synchronous = NORMAL');
    db.exec(SCHEMA);
    const log = new ActivityLog(db, path, options.now ?? Date.now);
    log.#prune(options.retentionDays ?? APPLICATION.activityRetentionDays);
    return log;
  }

  /** Records an entry; it is written, in order, at the end of this turn of the event loop. */
  record(entry: ActivityEntry): void {
    const row: PendingRow = {
      time: new Date(this.#now()).toISOString(),
      category: entry.category,
      action: entry.action,
      outcome: entry.outcome,
      token_id: entry.tokenId ?? null,
      token_name: entry.tokenName ?? null,
      client_name: entry.clientName ?? null,
      connection_id: entry.connectionId ?? null,
      statement_sha256: entry.statement === undefined ? null : sha256(entry.statement),
      duration_ms: entry.durationMs ?? null,
      rows: entry.rows ?? null,
      error: entry.error === undefined ? null : redact(entry.error),
      traceparent: entry.trace?.traceparent ?? null,
      tracestate: entry.trace?.tracestate ?? null,
      baggage: entry.trace?.baggage ?? null,
      detail: redactDetail(entry.detail),
    };
    // A lone surrogate (a client's name can hold one) would be stored as U+FFFD and so no longer match
    // the hash computed over it: store and hash the text SQLite will keep.
    for (const column of TEXT_COLUMNS) {
      const value = row[column];
      if (typeof value === 'string' && !value.isWellFormed()) row[column] = value.toWellFormed();
    }
    this.#pending.push(row);
    if (this.#usage) tally(this.#usage, row);
    if (this.#pending.length === 1) setImmediate(() => this.#handOver());
  }

  /**
   * Returns once every entry recorded so far is in the file. Throws, once, if some could not be written
   * (the error of the write, or a writer thread that stopped answering).
   */
  flush(): void {
    this.#handOver();
    if (this.#writer && !this.#awaitWriter(PROGRESS.handled, this.#posted)) {
      this.#abandonWriter('the writer thread stopped answering');
    }
    const failure = (this.#writer && receiveMessageOnPort(this.#writer.failures)?.message) ?? this.#failure;
    this.#failure = undefined;
    if (failure !== undefined) throw new Error(`the activity log could not be written: ${String(failure)}`);
  }

  /** Blocks until the writer has set `#progress[slot]` to at least `value`; false if it gave up or timed out. */
  #awaitWriter(slot: ProgressSlot, value: number): boolean {
    const deadline = performance.now() + WRITER_WAIT_MS;
    for (let seen = Atomics.load(this.#progress, slot); seen < value; seen = Atomics.load(this.#progress, slot)) {
      if (Atomics.load(this.#progress, PROGRESS.gaveUp) === 1 || performance.now() > deadline) return false;
      Atomics.wait(this.#progress, slot, seen, 100);
    }
    return true;
  }

  #handOver(): void {
    if (this.#pending.length === 0 || !this.#db.open) return;
    const rows = this.#pending;
    this.#pending = [];
    if (this.#writer && Atomics.load(this.#progress, PROGRESS.gaveUp) === 1) this.#abandonWriter('the writer thread gave up');
    if (this.#writeHere) {
      try {
        this.#writeHere(rows);
      } catch (error) {
        this.#failure = error instanceof Error ? error.message : String(error);
      }
      return;
    }
    this.#posted += 1;
    const message: WriterMessage = { batch: this.#posted, rows };
    this.#startedWriter().worker.postMessage(message);
  }

  #startedWriter(): { worker: Worker; failures: MessagePort } {
    if (this.#writer) return this.#writer;
    const { port1: failures, port2: writerSide } = new MessageChannel();
    const worker = new Worker(new URL('./activityWriter.js', import.meta.url), {
      workerData: { path: this.#path, progress: this.#progress, failures: writerSide } satisfies WriterData,
      transferList: [writerSide],
    });
    worker.on('error', () => {});
    worker.once('exit', () => {
      if (this.#writer?.worker === worker && this.#db.open) this.#abandonWriter('the writer thread stopped');
    });
    worker.unref();
    this.#writer = { worker, failures };
    return this.#writer;
  }

  /**
   * The writer thread is gone or gave up: the log writes on this thread from now on, and the next read
   * reports what may have been lost.
   */
  #abandonWriter(why: string): void {
    const writer = this.#writer;
    if (!writer) return;
    this.#writer = undefined;
    const reported = receiveMessageOnPort(writer.failures)?.message as unknown;
    writer.failures.close();
    void writer.worker.terminate();
    const lost = this.#posted - Atomics.load(this.#progress, PROGRESS.handled);
    const reasons = [
      ...(reported === undefined ? [] : [String(reported)]),
      ...(lost > 0 ? [`${why}; ${lost} turn(s) of rows were not written`] : []),
    ];
    if (reasons.length > 0) this.#failure = [this.#failure, ...reasons].filter(Boolean).join('; ');
    this.#writeHere = chainWriter(this.#db);
  }

  /** Newest first. */
  list(options: ActivityListOptions = {}): ActivityRow[] {
    this.flush();
    const where: string[] = [];
    const params: (string | number)[] = [];
    const filters: [string, string | undefined][] = [
      ['category = ?', options.category],
      ['outcome = ?', options.outcome],
      ['token_id = ?', options.tokenId],
      ['time >= ?', options.since],
    ];
    for (const [clause, value] of filters) {
      if (value === undefined) continue;
      where.push(clause);
      params.push(value);
    }
    if (options.search) {
      where.push(`(${['client_name', 'token_name', 'action', 'connection_id'].map((c) => `instr(lower(${c}), ?) > 0`).join(' OR ')})`);
      params.push(...Array<string>(4).fill(options.search.toLowerCase()));
    }
    const sql = `SELECT * FROM activity ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
                 ORDER BY seq DESC LIMIT ?`;
    return this.#db.prepare(sql).all(...params, options.limit ?? 100) as ActivityRow[];
  }

  /** The row `seq`, or undefined (pruned, never written). */
  row(seq: number): ActivityRow | undefined {
    this.flush();
    return this.#db.prepare('SELECT * FROM activity WHERE seq = ?').get(seq) as ActivityRow | undefined;
  }

  /** The newest row whose `detail` names the kept write `undoId` (the row of the write, or of the undo, that kept it). */
  seqOfUndo(undoId: string): number | undefined {
    this.flush();
    const found = this.#db.prepare("SELECT seq FROM activity WHERE json_extract(detail, '$.undo') = ? ORDER BY seq DESC LIMIT 1").get(undoId) as { seq: number } | undefined;
    return found?.seq;
  }

  /** The clients seen since `since` (ISO time), the most recent first. */
  clients(since: string): SeenClient[] {
    this.flush();
    return this.#db
      .prepare(
        `SELECT client_name AS client, token_name AS token, max(time) AS lastSeen, count(*) AS requests FROM activity
         WHERE time >= ? AND client_name IS NOT NULL AND category IN ('tool', 'resource', 'query', 'access')
         GROUP BY client_name, token_name ORDER BY lastSeen DESC LIMIT 50`,
      )
      .all(since) as SeenClient[];
  }

  /** Each token's requests, refusals and last client name (see tokenUsage.ts), by token id. */
  tokenUsage(): ReadonlyMap<string, TokenUsage> {
    if (!this.#usage) {
      this.flush();
      const usage = new Map<string, TokenUsage>();
      const rows = this.#db
        .prepare('SELECT token_id, category, action, outcome, client_name FROM activity WHERE token_id IS NOT NULL ORDER BY seq')
        .iterate() as Iterable<UsageRow>;
      for (const row of rows) tally(usage, row);
      this.#usage = usage;
    }
    return this.#usage;
  }

  /** Recomputes every row's hash in order and checks each links to the one before (or to the anchor). */
  verify(): ActivityVerifyResult {
    this.flush();
    let expected = this.#anchor();
    let count = 0;
    const rows = this.#db.prepare('SELECT * FROM activity ORDER BY seq').iterate() as Iterable<ActivityRow>;
    for (const row of rows) {
      if (row.prev_hash !== expected || rowHash(row) !== row.hash) return { ok: false, brokenAt: row.seq };
      expected = row.hash;
      count += 1;
    }
    return { ok: true, rows: count };
  }

  /**
   * Writes what is pending and closes the writer's connection before the log's own, which, closing last,
   * folds the WAL back into the file. Everything is closed even when the last write failed, which is
   * then thrown.
   */
  close(): void {
    try {
      this.flush();
    } finally {
      const writer = this.#writer;
      this.#writer = undefined;
      if (writer) {
        writer.worker.postMessage(CLOSE);
        if (!this.#awaitWriter(PROGRESS.closed, 1)) void writer.worker.terminate();
        writer.failures.close();
      }
      this.#db.close();
    }
  }

  #anchor(): string {
    const anchor = this.#db.prepare('SELECT prev_hash FROM activity_anchor WHERE id = 1').get() as { prev_hash: string } | undefined;
    return anchor?.prev_hash ?? GENESIS;
  }

  // Removes the oldest rows up to the first one still within retention, so what remains is an
  // unbroken chain starting from the recorded anchor.
  #prune(retentionDays: number): void {
    const cutoff = new Date(this.#now() - retentionDays * DAY_MS).toISOString();
    const prune = this.#db.transaction(() => {
      const lastPruned = this.#db
        .prepare(
          `SELECT seq, hash FROM activity
           WHERE seq < COALESCE((SELECT MIN(seq) FROM activity WHERE time >= ?), 9223372036854775807)
           ORDER BY seq DESC LIMIT 1`,
        )
        .get(cutoff) as { seq: number; hash: string } | undefined;
      if (!lastPruned) return;
      this.#db.prepare('INSERT OR REPLACE INTO activity_anchor (id, prev_hash) VALUES (1, ?)').run(lastPruned.hash);
      this.#db.prepare('DELETE FROM activity WHERE seq <= ?').run(lastPruned.seq);
    });
    prune.immediate();
  }
}
