import { describe, expect, it } from 'vitest';
import type { ActivityEntry, ActivityRow } from '../../../src/activity/activityLog.js';
import type { UndoRecord } from '../../../src/activity/undoStore.js';
import { type UndoDeps, undoCommand } from '../../../src/control/undoCommand.js';
import type { Database } from '../../../src/db/database.js';
import { DriverFailure } from '../../../src/db/driverFailure.js';
import type { KeptRows, Restored, RestorePlan } from '../../../src/db/keptWrites.js';

/**
 * `activity.undo` (control/undoCommand.ts) over stand-ins for the log, the store and the engine: what it
 * refuses and why, one undo of a write at a time, and what it records. The engines and the store are
 * proved for real in test/e2e/undo.test.ts.
 */

const ROWS: KeptRows = { columns: ['id', 'v'], keys: [0], before: [[{ i: '1' }, 'a']], after: [[{ i: '1' }, 'b']] };
const RECORD: UndoRecord = { id: 'aaaaaaaaaaaaaaaa', connectionId: 'db', place: 'sqlite:/data/shop.sqlite', table: { schema: 'main', name: 't' }, verb: 'UPDATE', rows: 2, time: '2026-11-28T00:00:00.000Z', state: 'kept' };

/** Where the connection `db` points now: its file can be changed after the write. */
const connectionPath = { now: '/data/shop.sqlite' };

function harness(restore: (plan: RestorePlan) => Promise<Restored>, rows: Record<number, Partial<ActivityRow>> = { 5: { detail: JSON.stringify({ undo: RECORD.id }) } }) {
  const records = new Map<string, UndoRecord>([[RECORD.id, { ...RECORD }]]);
  const audits: ActivityEntry[] = [];
  const plans: RestorePlan[] = [];
  const db = { engine: 'sqlite', restoreRows: (plan: RestorePlan) => (plans.push(plan), restore(plan)) } as unknown as Database;
  const deps: UndoDeps = {
    activity: { row: (seq) => (rows[seq] ? ({ seq, detail: null, ...rows[seq] } as ActivityRow) : undefined), seqOfUndo: (id) => (id === 'bbbbbbbbbbbbbbbb' ? 6 : undefined) },
    undoStore: {
      get: (id) => records.get(id),
      rows: async () => ROWS,
      keep: async (write) => {
        records.set('bbbbbbbbbbbbbbbb', { ...RECORD, ...write, id: 'bbbbbbbbbbbbbbbb' });
        return 'bbbbbbbbbbbbbbbb';
      },
      markUndone: (id, by) => records.set(id, { ...records.get(id)!, state: 'undone', undoneBy: by }),
    },
    catalog: { get: (id: string) => (id === 'db' ? { id: 'db', engine: 'sqlite', path: connectionPath.now } : undefined), database: () => db } as unknown as UndoDeps['catalog'],
    audit: (entry) => audits.push(entry),
  };
  return { run: undoCommand(deps), audits, plans, records };
}

const restored: Restored = { restored: true, rowsAffected: 1, verb: 'UPDATE', kept: { ...ROWS, before: ROWS.after, after: ROWS.before } };

describe('activity.undo', () => {
  it('takes the write back, keeps the undo as a write of its own, and records it', async () => {
    const h = harness(async () => restored);
    expect(await h.run({ seq: 5 })).toEqual({ ok: true, rowsAffected: 1, undoSeq: 6 });
    expect(h.plans).toEqual([expect.objectContaining({ verb: 'UPDATE', table: RECORD.table, rows: ROWS, force: false, timeoutMs: 30_000 })]);
    expect(h.records.get(RECORD.id)).toMatchObject({ state: 'undone', undoneBy: 'bbbbbbbbbbbbbbbb' });
    expect(h.records.get('bbbbbbbbbbbbbbbb')).toMatchObject({ undoes: RECORD.id, verb: 'UPDATE', state: 'kept' });
    expect(h.audits).toEqual([
      { category: 'admin', action: 'undo', connectionId: 'db', outcome: 'success', durationMs: expect.any(Number), rows: 1, detail: { undo: 'bbbbbbbbbbbbbbbb', of: 5, forced: false } },
    ]);
    await expect(h.run({ seq: 5 })).rejects.toThrow('activity 5 was already undone (activity 6)');
  });

  it('answers the rows that differ and changes nothing; force goes through', async () => {
    const differs = [{ key: [{ i: '1' }], now: [{ i: '1' }, 'c'], expected: [{ i: '1' }, 'b'] }];
    const h = harness(async (plan) => (plan.force ? restored : { restored: false, differs }));
    expect(await h.run({ seq: 5 })).toEqual({ ok: false, columns: ['id', 'v'], keys: [0], differs });
    expect(h.records.get(RECORD.id)?.state).toBe('kept');
    expect(h.audits[0]).toMatchObject({ action: 'undo', outcome: 'error', error: 'rows_changed', detail: { of: 5, differs: 1 } });
    expect(await h.run({ seq: 5, force: true })).toMatchObject({ ok: true });
  });

  it('runs one undo of a write at a time', async () => {
    let finish: (value: Restored) => void = () => {};
    const h = harness(() => new Promise<Restored>((resolve) => (finish = resolve)));
    const first = h.run({ seq: 5 });
    await expect(h.run({ seq: 5 })).rejects.toThrow('an undo of activity 5 is running');
    await new Promise((resolve) => setImmediate(resolve));
    finish(restored);
    expect(await first).toMatchObject({ ok: true });
  });

  it('refuses, saying why: arguments, unknown rows, rows that kept nothing, gone records and connections, a failed undo', async () => {
    const rows = {
      5: { detail: JSON.stringify({ undo: RECORD.id }) },
      7: { detail: JSON.stringify({ undo_unavailable: 'books has no primary key or unique key of columns never null, to match its rows by' }) },
      8: { detail: null },
      9: { detail: JSON.stringify({ undo: 'cccccccccccccccc' }) },
    };
    const h = harness(async () => {
      throw new DriverFailure('statement_timeout', 'canceling statement due to statement timeout');
    }, rows);
    for (const [params, message] of [
      [{ seq: '5' }, 'seq must be the activity row number of a write'],
      [{ seq: 0 }, 'seq must be the activity row number of a write'],
      [{ seq: 5, force: 'yes' }, 'force must be true or false'],
      [{ seq: 4 }, 'no activity row 4'],
      [{ seq: 7 }, 'activity 7 cannot be undone: books has no primary key or unique key of columns never null, to match its rows by'],
      [{ seq: 8 }, 'activity 8 kept no rows: only an approved INSERT, UPDATE or DELETE can be undone'],
      [{ seq: 9 }, 'the kept rows of activity 9 are gone (kept as long as the activity log keeps its rows)'],
      [{ seq: 5 }, 'the undo failed, nothing changed: canceling statement due to statement timeout'],
    ] as const) {
      await expect(h.run(params as Record<string, unknown>)).rejects.toThrow(message);
    }
    expect(h.audits).toEqual([{ category: 'admin', action: 'undo', connectionId: 'db', outcome: 'error', durationMs: expect.any(Number), error: 'statement_timeout', detail: { of: 5 } }]);
    h.records.set(RECORD.id, { ...RECORD, connectionId: 'removed' });
    await expect(h.run({ seq: 5 })).rejects.toThrow('connection "removed" is gone');
    h.records.set(RECORD.id, RECORD);
    connectionPath.now = '/data/other.sqlite';
    try {
      await expect(h.run({ seq: 5 })).rejects.toThrow('connection "db" points elsewhere than when the write ran (sqlite:/data/shop.sqlite); nothing was undone');
    } finally {
      connectionPath.now = '/data/shop.sqlite';
    }
    expect(h.plans).toHaveLength(1);
  });
});
