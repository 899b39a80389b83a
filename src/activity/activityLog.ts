import { createHash } from 'node:crypto';
import { chmodSync } from 'node:fs';
import Database from 'better-sqlite3';
import { redact } from '../db/redact.js';

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

const GENESIS = '0'.repeat(64);
const DAY_MS = 86_400_000;

// The key order of the canonical JSON each row's hash covers (every column but `hash`).
const HASHED_COLUMNS: (keyof ActivityRow)[] = [
  'seq',
  'time',
  'category',
  'action',
  'outcome',
  'token_id',
  'token_name',
  'client_name',
  'connection_id',
  'statement_sha256',
  'duration_ms',
  'rows',
  'error',
  'traceparent',
  'tracestate',
  'baggage',
  'detail',
  'prev_hash',
];

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

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function rowHash(row: Omit<ActivityRow, 'hash'>): string {
  // An array replacer fixes the key order and leaves out `hash`.
  return sha256(JSON.stringify(row, HASHED_COLUMNS));
}

function redactDetail(detail: ActivityEntry['detail']): string | null {
  if (!detail) return null;
  const entries = Object.entries(detail).map(([k, v]) => [k, typeof v === 'string' ? redact(v) : v]);
  return JSON.stringify(Object.fromEntries(entries));
}

/** The hash-chained activity log (one SQLite file, mode 0600); rows past retention are pruned on open. */
export class ActivityLog {
  readonly #db: Database.Database;
  readonly #now: () => number;
  readonly #pending: { entry: ActivityEntry; time: number }[] = [];
  readonly #statements;
  readonly #write;

  private constructor(db: Database.Database, now: () => number) {
    this.#db = db;
    this.#now = now;
    this.#statements = {
      lastSeq: db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'activity'"),
      tip: db.prepare('SELECT hash FROM activity ORDER BY seq DESC LIMIT 1'),
      anchor: db.prepare('SELECT prev_hash FROM activity_anchor WHERE id = 1'),
      insert: db.prepare(
        `INSERT INTO activity (${HASHED_COLUMNS.map((c) => `"${c}"`).join(', ')}, hash)
         VALUES (${HASHED_COLUMNS.map((c) => `@${c}`).join(', ')}, @hash)`,
      ),
    };
    this.#write = db.transaction((entries: { entry: ActivityEntry; time: number }[]) => this.#writeEntries(entries));
  }

  static open(path: string, options: { now?: () => number; retentionDays?: number } = {}): ActivityLog {
    const db = new Database(path);
    // Before WAL is on: SQLite gives the -wal and -shm files the database file's mode.
    chmodSync(path, 0o600);
    db.pragma('journal_mode = WAL');
    db.exec(SCHEMA);
    const log = new ActivityLog(db, options.now ?? Date.now);
    log.#prune(options.retentionDays ?? 90);
    return log;
  }

  /**
   * Records an entry. Entries are written in order, in one transaction per turn of the event loop (a
   * burst of requests is one commit, not one each); every read below writes what is pending first.
   */
  record(entry: ActivityEntry): void {
    this.#pending.push({ entry, time: this.#now() });
    if (this.#pending.length === 1) setImmediate(() => this.flush());
  }

  /** Writes the pending entries now, each row hash-chained to the one before. */
  flush(): void {
    if (this.#pending.length === 0 || !this.#db.open) return;
    const entries = this.#pending.splice(0);
    // Immediate: take the write lock before reading the tip, so two processes cannot fork the chain.
    this.#write.immediate(entries);
  }

  #writeEntries(entries: { entry: ActivityEntry; time: number }[]): void {
    const last = this.#statements.lastSeq.get() as { seq: number } | undefined;
    let seq = last?.seq ?? 0;
    let prevHash = this.#tip();
    for (const { entry, time } of entries) {
      const row: Omit<ActivityRow, 'hash'> = {
        seq: ++seq,
        time: new Date(time).toISOString(),
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
        prev_hash: prevHash,
      };
      prevHash = rowHash(row);
      this.#statements.insert.run({ ...row, hash: prevHash });
    }
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

  close(): void {
    this.flush();
    this.#db.close();
  }

  #anchor(): string {
    const anchor = this.#statements.anchor.get() as { prev_hash: string } | undefined;
    return anchor?.prev_hash ?? GENESIS;
  }

  #tip(): string {
    const last = this.#statements.tip.get() as { hash: string } | undefined;
    return last?.hash ?? this.#anchor();
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
