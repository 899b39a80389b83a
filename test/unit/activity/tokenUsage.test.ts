import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACTIVITY_FILE, type ActivityEntry, ActivityLog } from '../../../src/activity/activityLog.js';

const NOW = Date.UTC(2026, 5, 1);
const A = { tokenId: 'tok_00000000000a', tokenName: 'laptop' };
const B = { tokenId: 'tok_00000000000b', tokenName: 'ci' };

let dir: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-usage-'));
  path = join(dir, ACTIVITY_FILE);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** One of each kind of row a token can have: four of its requests (two refused) and two that are not requests. */
const rowsOfA: ActivityEntry[] = [
  { category: 'tool', action: 'execute_query', outcome: 'success', ...A, clientName: 'Claude' },
  { category: 'resource', action: 'schema', outcome: 'error', ...A, clientName: 'Cursor' },
  { category: 'access', action: 'tools/call', outcome: 'denied', ...A },
  { category: 'auth', action: 'bearer', outcome: 'denied', ...A, detail: { reason: 'revoked' } },
  { category: 'auth', action: 'pairing.approved', outcome: 'success', ...A, clientName: 'Pairing client' },
  { category: 'admin', action: 'token.revoked', outcome: 'success', ...A },
];

describe('the activity log per token: usage and the token filter', () => {
  it('counts requests and refusals per token, with the last client name it declared', () => {
    const log = ActivityLog.open(path, { now: () => NOW });
    try {
      for (const entry of rowsOfA) log.record(entry);
      log.record({ category: 'tool', action: 'list_tables', outcome: 'rateLimited', ...B });
      log.record({ category: 'tool', action: 'list_tables', outcome: 'success', clientName: 'anonymous' });
      expect(Object.fromEntries(log.tokenUsage())).toEqual({
        [A.tokenId]: { requests: 4, refusals: 2, clientName: 'Cursor' },
        [B.tokenId]: { requests: 1, refusals: 1 },
      });
    } finally {
      log.close();
    }
  });

  it('once counted, new rows are added as they are recorded; a reopened log counts the same from its file', () => {
    const log = ActivityLog.open(path, { now: () => NOW });
    try {
      log.record(rowsOfA[0]!);
      expect(log.tokenUsage().get(A.tokenId)).toEqual({ requests: 1, refusals: 0, clientName: 'Claude' });
      log.record({ category: 'access', action: 'tools/call', outcome: 'rateLimited', ...A, clientName: 'Zed' });
      log.record(rowsOfA[4]!);
      expect(log.tokenUsage().get(A.tokenId)).toEqual({ requests: 2, refusals: 1, clientName: 'Zed' });
    } finally {
      log.close();
    }
    const again = ActivityLog.open(path, { now: () => NOW });
    try {
      expect(again.tokenUsage().get(A.tokenId)).toEqual({ requests: 2, refusals: 1, clientName: 'Zed' });
      expect(again.tokenUsage().has(B.tokenId)).toBe(false);
    } finally {
      again.close();
    }
  });

  it('list({ tokenId }) returns that token\'s rows only, newest first, with the other filters', () => {
    const log = ActivityLog.open(path, { now: () => NOW });
    try {
      for (const entry of rowsOfA) log.record(entry);
      log.record({ category: 'tool', action: 'list_tables', outcome: 'success', ...B });
      expect(log.list({ tokenId: A.tokenId }).map((row) => row.action)).toEqual([
        'token.revoked', 'pairing.approved', 'bearer', 'tools/call', 'schema', 'execute_query',
      ]);
      expect(log.list({ tokenId: A.tokenId, outcome: 'denied' }).map((row) => row.action)).toEqual(['bearer', 'tools/call']);
      expect(log.list({ tokenId: B.tokenId }).map((row) => [row.token_id, row.action])).toEqual([[B.tokenId, 'list_tables']]);
      expect(log.list({ tokenId: 'tok_0000000000ff' })).toEqual([]);
    } finally {
      log.close();
    }
  });
});
