import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACTIVITY_FILE, type ActivityEntry, ActivityLog } from '../../../src/activity/activityLog.js';

const NOW = Date.UTC(2026, 5, 1);
const GENESIS = '0'.repeat(64);

/** The hashed columns, in the order of the canonical JSON: written out, not imported from the code under test. */
const COLUMNS = [
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

const ENTRIES: ActivityEntry[] = [
  { category: 'auth', action: 'exchange', outcome: 'denied' },
  {
    category: 'query',
    action: 'run_query',
    outcome: 'success',
    tokenId: 'tok_1',
    tokenName: 'Laptop "work" token',
    clientName: 'Claude Desktop ✨ — Ünïcødé',
    connectionId: 'conn-1',
    statement: "SELECT 'a\"b' AS x,\n  '\\' AS y",
    durationMs: 12.5,
    rows: 3,
    trace: {
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      tracestate: 'vendor=a,other=b',
      baggage: 'user=alice',
    },
    detail: { status: 200, cached: false, note: 'line one\nline "two"\t\u0001 ☃' },
  },
  {
    category: 'tool',
    action: 'describe_table',
    outcome: 'error',
    tokenId: 'tok_2',
    durationMs: 0,
    rows: 0,
    error: 'relation "ünknown"\nnot found',
    trace: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00' },
  },
  { category: 'resource', action: 'read', outcome: 'rateLimited', clientName: '', durationMs: 1234, detail: {} },
  { category: 'admin', action: 'tokens.revoke', outcome: 'success', detail: { emoji: '😀\u2028\u2029', n: -1.25e-7 } },
];

type Row = Record<string, unknown> & { seq: number; hash: string; prev_hash: string };

let dir: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-activity-hash-'));
  path = join(dir, ACTIVITY_FILE);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function rows(): Row[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT * FROM activity ORDER BY seq').all() as Row[];
  } finally {
    db.close();
  }
}

function canonicalHash(row: Row): string {
  const { hash: _hash, ...rowWithoutHash } = row;
  return createHash('sha256').update(JSON.stringify(rowWithoutHash, COLUMNS)).digest('hex');
}

function expectChained(written: Row[], first = GENESIS): void {
  let prev = first;
  for (const row of written) {
    expect(row.hash).toBe(canonicalHash(row));
    expect(row.prev_hash).toBe(prev);
    prev = row.hash;
  }
}

describe('ActivityLog row hash', () => {
  it('is the SHA-256 of JSON.stringify(row, columns), each row chained to the one before', () => {
    let clock = NOW;
    const log = ActivityLog.open(path, { now: () => clock });
    for (const entry of ENTRIES) {
      log.record(entry);
      clock += 1500;
    }
    log.flush();
    const written = rows();
    expect(written.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    expectChained(written);
    expect(log.verify()).toEqual({ ok: true, rows: ENTRIES.length });
    log.close();
  });

  it('stays canonical across flushes and reopenings', () => {
    let clock = NOW;
    const first = ActivityLog.open(path, { now: () => clock });
    first.record(ENTRIES[1] as ActivityEntry);
    first.flush();
    clock += 1;
    first.record(ENTRIES[2] as ActivityEntry);
    first.record(ENTRIES[0] as ActivityEntry);
    first.close();
    const second = ActivityLog.open(path, { now: () => clock });
    second.record(ENTRIES[4] as ActivityEntry);
    second.flush();
    const written = rows();
    expect(written).toHaveLength(4);
    expectChained(written);
    second.close();
  });

  it('stores a lone surrogate from a client as U+FFFD and hashes what it stores, so the log still verifies', () => {
    const log = ActivityLog.open(path, { now: () => NOW });
    log.record({
      category: 'auth',
      action: 'pairing.open\udfff',
      outcome: 'denied',
      clientName: 'client \ud800 name',
      tokenName: '\udc00',
      detail: { note: 'x\ud83d' },
    });
    log.flush();
    const [row] = rows() as [Row];
    expect(row.client_name).toBe('client \ufffd name');
    expect(row.token_name).toBe('\ufffd');
    expect(row.action).toBe('pairing.open\ufffd');
    // JSON.stringify writes a lone surrogate as an escape, which SQLite keeps as it is.
    expect(row.detail).toBe('{"note":"x\\ud83d"}');
    expectChained([row]);
    expect(log.verify()).toEqual({ ok: true, rows: 1 });
    log.close();
  });

  it('covers every column, nulls included, in the fixed order', () => {
    const log = ActivityLog.open(path, { now: () => NOW });
    log.record(ENTRIES[0] as ActivityEntry);
    log.close();
    const [row] = rows() as [Row];
    const { hash: _hash, ...rest } = row;
    const canonical = JSON.stringify(rest, COLUMNS);
    expect(Object.keys(JSON.parse(canonical) as object)).toEqual(COLUMNS);
    expect(canonical).toBe(
      `{"seq":1,"time":"${new Date(NOW).toISOString()}","category":"auth","action":"exchange","outcome":"denied",` +
        '"token_id":null,"token_name":null,"client_name":null,"connection_id":null,"statement_sha256":null,' +
        '"duration_ms":null,"rows":null,"error":null,"traceparent":null,"tracestate":null,"baggage":null,' +
        `"detail":null,"prev_hash":"${GENESIS}"}`,
    );
    expect(row.hash).toBe(createHash('sha256').update(canonical).digest('hex'));
  });
});
