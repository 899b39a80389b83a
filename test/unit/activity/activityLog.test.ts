import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACTIVITY_FILE, ActivityLog } from '../../../src/activity/activityLog.js';

const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);

let dir: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-activity-'));
  path = join(dir, ACTIVITY_FILE);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Opens the log, records `count` tool calls and closes it again. */
function seed(count: number): void {
  const log = ActivityLog.open(path, { now: () => NOW });
  for (let i = 1; i <= count; i++) log.record({ category: 'tool', action: `call ${i}`, outcome: 'success' });
  log.close();
}

/** Tampers with the file through a second connection, as an attacker with file access could. */
function tamper(sql: string, ...params: unknown[]): void {
  const db = new Database(path);
  db.prepare(sql).run(...params);
  db.close();
}

function verify(): ReturnType<ActivityLog['verify']> {
  const log = ActivityLog.open(path, { now: () => NOW });
  try {
    return log.verify();
  } finally {
    log.close();
  }
}

describe('ActivityLog', () => {
  it('lists newest first, filtered and limited', () => {
    let clock = NOW;
    const log = ActivityLog.open(path, { now: () => clock });
    log.record({ category: 'auth', action: 'exchange', outcome: 'denied', detail: { status: 403 } });
    clock += 1000;
    log.record({ category: 'query', action: 'run_query', outcome: 'success', tokenId: 'tok_1', rows: 3 });
    clock += 1000;
    log.record({ category: 'query', action: 'run_query', outcome: 'error', tokenId: 'tok_2' });

    expect(log.list().map((r) => r.seq)).toEqual([3, 2, 1]);
    expect(log.list({ limit: 2 }).map((r) => r.seq)).toEqual([3, 2]);
    expect(log.list({ category: 'query' }).map((r) => r.seq)).toEqual([3, 2]);
    expect(log.list({ outcome: 'denied' }).map((r) => r.seq)).toEqual([1]);
    expect(log.list({ tokenId: 'tok_1' }).map((r) => r.seq)).toEqual([2]);
    expect(log.list({ since: new Date(NOW + 1000).toISOString() }).map((r) => r.seq)).toEqual([3, 2]);
    expect(log.list({ category: 'query', outcome: 'success' })).toMatchObject([
      { seq: 2, time: new Date(NOW + 1000).toISOString(), token_id: 'tok_1', rows: 3, error: null },
    ]);
    expect(log.list({ category: 'auth' })[0]?.detail).toBe('{"status":403}');
    log.close();
  });

  it('stores a statement’s SHA-256, never its text', () => {
    const statement = "SELECT secret_column FROM very_private_table WHERE name = 'needle'";
    const digest = createHash('sha256').update(statement).digest('hex');
    const log = ActivityLog.open(path);
    log.record({ category: 'query', action: 'run_query', outcome: 'success', statement });
    log.close();

    const db = new Database(path);
    const dump = JSON.stringify(db.prepare('SELECT * FROM activity').all());
    db.close();
    // Closing checkpoints the WAL, so the main file holds every row.
    const bytes = readFileSync(path, 'latin1');
    for (const text of [dump, bytes]) {
      expect(text).not.toContain('very_private_table');
      expect(text).toContain(digest);
    }
  });

  it('redacts secrets in errors', () => {
    const log = ActivityLog.open(path);
    log.record({
      category: 'access',
      action: 'connect',
      outcome: 'error',
      error: 'connect failed: postgres://u:hunter2@h/db',
    });
    expect(log.list()[0]?.error).toBe('connect failed: postgres://u:***@h/db');
    log.close();
  });

  it('verifies a clean log', () => {
    seed(4);
    expect(verify()).toEqual({ ok: true, rows: 4 });
  });

  it('detects an edited column at that row', () => {
    seed(4);
    tamper("UPDATE activity SET outcome = 'denied' WHERE seq = 2");
    expect(verify()).toEqual({ ok: false, brokenAt: 2 });
  });

  it('detects a deleted middle row at the row after it', () => {
    seed(4);
    tamper('DELETE FROM activity WHERE seq = 2');
    expect(verify()).toEqual({ ok: false, brokenAt: 3 });
  });

  it('detects an edited row whose hash was recomputed, at the next row', () => {
    seed(4);
    const db = new Database(path);
    db.prepare("UPDATE activity SET outcome = 'denied' WHERE seq = 2").run();
    const row = db.prepare('SELECT * FROM activity WHERE seq = 2').get() as Record<string, unknown>;
    delete row.hash;
    // SELECT * yields the columns in table order, the same order the log hashes them in.
    const forged = createHash('sha256').update(JSON.stringify(row)).digest('hex');
    db.prepare('UPDATE activity SET hash = ? WHERE seq = 2').run(forged);
    db.close();

    // Row 2 now checks out by itself (else this would say 2): the link from row 3 gives it away.
    expect(verify()).toEqual({ ok: false, brokenAt: 3 });
  });

  it('prunes rows past retention on open and still verifies', () => {
    let clock = NOW - 100 * DAY_MS;
    const now = () => clock;
    let log = ActivityLog.open(path, { now });
    log.record({ category: 'tool', action: 'old 1', outcome: 'success' });
    log.record({ category: 'tool', action: 'old 2', outcome: 'success' });
    clock = NOW - DAY_MS;
    log.record({ category: 'tool', action: 'recent', outcome: 'success' });
    log.close();

    clock = NOW;
    log = ActivityLog.open(path, { now });
    expect(log.list().map((r) => r.action)).toEqual(['recent']);
    expect(log.verify()).toEqual({ ok: true, rows: 1 });
    log.record({ category: 'tool', action: 'new', outcome: 'success' });
    expect(log.verify()).toEqual({ ok: true, rows: 2 });
    log.close();

    clock = NOW + 365 * DAY_MS;
    log = ActivityLog.open(path, { now });
    expect(log.list()).toEqual([]);
    log.record({ category: 'tool', action: 'after a year', outcome: 'success' });
    expect(log.verify()).toEqual({ ok: true, rows: 1 });
    expect(log.list()[0]?.seq).toBe(5);
    log.close();
  });

  it('detects a deleted first row after pruning', () => {
    let clock = NOW - 100 * DAY_MS;
    const log = ActivityLog.open(path, { now: () => clock });
    log.record({ category: 'tool', action: 'old', outcome: 'success' });
    clock = NOW;
    log.record({ category: 'tool', action: 'recent 1', outcome: 'success' });
    log.record({ category: 'tool', action: 'recent 2', outcome: 'success' });
    log.close();
    ActivityLog.open(path, { now: () => clock }).close();

    tamper('DELETE FROM activity WHERE seq = 2');
    expect(verify()).toEqual({ ok: false, brokenAt: 3 });
  });

  it('creates the file with mode 0600', () => {
    seed(1);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});

describe('ActivityLog writer thread', () => {
  it('cannot open the log: the next read says so once, and later rows are written on the log’s own thread', () => {
    const log = ActivityLog.open(path, { now: () => NOW });
    // The log's own connection keeps the files it has open; the writer thread finds nothing at the path.
    for (const suffix of ['', '-wal', '-shm']) renameSync(`${path}${suffix}`, `${path}.moved${suffix}`);
    log.record({ category: 'tool', action: 'lost', outcome: 'success' });
    expect(() => log.list()).toThrow(/the activity log could not be written: the writer thread could not open the log/);
    log.record({ category: 'tool', action: 'kept', outcome: 'success' });
    expect(log.list().map((row) => row.action)).toEqual(['kept']);
    expect(log.verify()).toEqual({ ok: true, rows: 1 });
    log.close();
  });

  it('reports a failed write at the next read, and close() still closes both connections', () => {
    const log = ActivityLog.open(path, { now: () => NOW });
    log.record({ category: 'tool', action: 'first', outcome: 'success' });
    expect(log.list()).toHaveLength(1);
    tamper('DROP TABLE activity');
    log.record({ category: 'tool', action: 'second', outcome: 'success' });
    expect(() => log.list()).toThrow(/the activity log could not be written: .*activity/);
    log.record({ category: 'tool', action: 'third', outcome: 'success' });
    expect(() => log.close()).toThrow(/the activity log could not be written/);
    // Both connections are closed: the file opens again, recreating the table.
    const reopened = ActivityLog.open(path, { now: () => NOW });
    reopened.record({ category: 'tool', action: 'after', outcome: 'success' });
    expect(reopened.list().map((row) => row.action)).toEqual(['after']);
    reopened.close();
  });
});
