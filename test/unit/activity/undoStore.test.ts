import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UNDO_DIR, UndoStore, withUndoState } from '../../../src/activity/undoStore.js';
import { APPLICATION } from '../../../src/core/contract.js';
import { DAY_MS } from '../../../src/core/clock.js';
import type { KeptRows } from '../../../src/db/keptWrites.js';

/** The kept rows of approved writes (activity/undoStore.ts): modes, states, what a reader sees, pruning with the activity log. */

const ROWS: KeptRows = {
  columns: ['id', 'big', 'f', 'b', 'txt'],
  keys: [0],
  before: [
    [{ i: '1' }, { i: '9007199254740993' }, { f: '-0.0' }, { b: 'AAH/' }, 'trailing  \u202E'],
    [{ i: '2' }, null, { f: 'Infinity' }, null, ''],
  ],
  after: [
    [{ i: '1' }, { i: '9007199254740993' }, { f: '5e-324' }, { b: 'AAH/' }, 'changed'],
    [{ i: '2' }, null, { f: 'Infinity' }, null, 'line\nbreak'],
  ],
};
const WRITE = { connectionId: 'db', place: 'sqlite:/tmp/x.sqlite', table: { schema: 'main', name: 'things' }, verb: 'UPDATE' } as const;

let dataDir: string;
let now = Date.parse('2026-11-01T00:00:00Z');
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'sluice-undo-'));
  now = Date.parse('2026-11-01T00:00:00Z');
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

describe('the undo store', () => {
  it('keeps a write in its own 0600 files under a 0700 directory, and gives the rows back exactly', async () => {
    const store = UndoStore.open(dataDir, { now: () => now });
    const dir = join(dataDir, UNDO_DIR);
    // Made with the first write kept: a support directory where nothing was kept has no empty folder.
    expect(existsSync(dir)).toBe(false);
    const id = await store.keep(WRITE, ROWS);
    expect(mode(dir)).toBe(0o700);
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(readdirSync(dir).sort()).toEqual([`${id}.json`, `${id}.rows`]);
    for (const name of readdirSync(dir)) expect(mode(join(dir, name))).toBe(0o600);
    expect(store.get(id)).toEqual({ ...WRITE, id, rows: 4, time: '2026-11-01T00:00:00.000Z', state: 'kept' });
    expect(await store.rows(id)).toEqual(ROWS);
  });

  it('tightens a directory that exists with a looser mode', () => {
    const dir = join(dataDir, UNDO_DIR);
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    UndoStore.open(dataDir);
    expect(mode(dir)).toBe(0o700);
  });

  it('moves a write from available to done once undone, and names the undo', async () => {
    const store = UndoStore.open(dataDir, { now: () => now });
    const id = await store.keep(WRITE, ROWS);
    expect(store.state(id)).toBe('available');
    const undoId = await store.keep({ ...WRITE, undoes: id }, { ...ROWS, before: ROWS.after, after: ROWS.before });
    store.markUndone(id, undoId);
    expect(store.get(id)).toMatchObject({ state: 'undone', undoneBy: undoId });
    expect(store.state(id)).toBe('done');
    expect(store.state(undoId)).toBe('available');
    expect(store.get(undoId)).toMatchObject({ undoes: id, state: 'kept' });
    expect(mode(join(dataDir, UNDO_DIR, `${id}.json`))).toBe(0o600);
  });

  it('answers nothing for an id of another form (never a path), or one it does not hold', async () => {
    const store = UndoStore.open(dataDir);
    for (const id of ['../config', '0123456789abcdef', 'ABCDEF0123456789', '']) {
      expect(store.get(id)).toBeUndefined();
      expect(store.state(id)).toBeNull();
    }
    await expect(store.rows('../../etc/passwd')).rejects.toThrow('no kept write');
    expect(() => store.markUndone('0123456789abcdef', 'x')).toThrow('no kept write');
  });

  it('shows each activity row’s undo state: available, done, or null when it kept nothing', async () => {
    const store = UndoStore.open(dataDir);
    const id = await store.keep(WRITE, ROWS);
    const row = (detail: unknown) => ({ seq: 1, detail: detail === null ? null : JSON.stringify(detail) });
    expect(withUndoState(row({ undo: id }), store).undo).toBe('available');
    expect(withUndoState(row({ undo_unavailable: 'no key' }), store).undo).toBeNull();
    expect(withUndoState(row(null), store).undo).toBeNull();
    expect(withUndoState(row({ undo: 'feedfacefeedface' }), store).undo).toBeNull();
    // A reader (sluice activity) sees the same and creates nothing.
    expect(UndoStore.reader(dataDir).state(id)).toBe('available');
    const elsewhere = mkdtempSync(join(tmpdir(), 'sluice-undo-none-'));
    expect(UndoStore.reader(elsewhere).state(id)).toBeNull();
    expect(existsSync(join(elsewhere, UNDO_DIR))).toBe(false);
    rmSync(elsewhere, { recursive: true });
  });

  it(`prunes what is older than the activity log keeps (${APPLICATION.activityRetentionDays} days), a rows file without its record, and stale temp files`, async () => {
    const store = UndoStore.open(dataDir, { now: () => now });
    const old = await store.keep(WRITE, ROWS);
    now += (APPLICATION.activityRetentionDays - 1) * DAY_MS;
    const recent = await store.keep(WRITE, ROWS);
    const dir = join(dataDir, UNDO_DIR);
    writeFileSync(join(dir, 'aaaaaaaaaaaaaaaa.rows'), '{}\n');
    writeFileSync(join(dir, '.0123456789ab.tmp'), 'half');
    writeFileSync(join(dir, 'notes.txt'), 'not ours');

    // A day short of retention for the older one: nothing but the orphan and the temp file go.
    UndoStore.open(dataDir, { now: () => now });
    expect(readdirSync(dir).sort()).toEqual([`${old}.json`, `${old}.rows`, `${recent}.json`, `${recent}.rows`, 'notes.txt'].sort());

    now += 2 * DAY_MS;
    const reopened = UndoStore.open(dataDir, { now: () => now });
    expect(readdirSync(dir).sort()).toEqual([`${recent}.json`, `${recent}.rows`, 'notes.txt'].sort());
    expect(reopened.get(old)).toBeUndefined();
    expect(await reopened.rows(recent)).toEqual(ROWS);
  });

  it('writes many rows a slice at a time and reads them back in order', async () => {
    const store = UndoStore.open(dataDir);
    // About 560 KB of rows: three slices of at most 256 Ki characters, each written on its own turn.
    const many: KeptRows = { columns: ['id', 'txt'], keys: [0], before: [], after: Array.from({ length: 2_500 }, (_, i) => [{ i: String(i) }, `${i} ${'x'.repeat(200)}`]) };
    const id = await store.keep({ ...WRITE, verb: 'INSERT' }, many);
    expect(store.get(id)?.rows).toBe(2_500);
    expect(await store.rows(id)).toEqual(many);
  });
});
