import type { ActivityEntry, ActivityLog } from '../activity/activityLog.js';
import { undoIdOf, type UndoRecord, type UndoStore } from '../activity/undoStore.js';
import { RESULTS } from '../core/contract.js';
import { type ConnectionCatalog, connectionOnDatabase } from '../db/connections/connectionCatalog.js';
import { connectionPlace } from '../db/connections/connectionPlace.js';
import { DriverFailure } from '../db/driverFailure.js';
import { ENGINE_NAMES } from '../db/database.js';
import type { RowDifference } from '../db/keptWrites.js';

export type UndoDeps = {
  activity: Pick<ActivityLog, 'row' | 'seqOfUndo'>;
  undoStore: Pick<UndoStore, 'get' | 'rows' | 'keep' | 'markUndone'>;
  catalog: Pick<ConnectionCatalog, 'get' | 'database'>;
  audit(entry: ActivityEntry): void;
};

/**
 * `activity.undo`'s answer: the write taken back (and the activity row of the undo), or the rows that
 * changed since and stopped it, with the names of their columns (`now` and `expected` hold every
 * column, `key` those at the indexes `keys`).
 */
export type UndoAnswer =
  | { ok: true; rowsAffected: number; undoSeq: number | undefined }
  | { ok: false; columns: string[]; keys: number[]; differs: RowDifference[] };

/** The kept write activity row `seq` names, ready to be taken back; throws why it cannot be. */
function keptWriteOf(deps: UndoDeps, seq: number): UndoRecord {
  const row = deps.activity.row(seq);
  if (!row) throw new Error(`no activity row ${seq}`);
  const detail = row.detail === null ? {} : (JSON.parse(row.detail) as Record<string, unknown>);
  if (typeof detail.undo_unavailable === 'string') throw new Error(`activity ${seq} cannot be undone: ${detail.undo_unavailable}`);
  const id = undoIdOf(row);
  if (id === undefined) throw new Error(`activity ${seq} kept no rows: only an approved INSERT, UPDATE or DELETE can be undone`);
  const record = deps.undoStore.get(id);
  if (!record) throw new Error(`the kept rows of activity ${seq} are gone (kept as long as the activity log keeps its rows)`);
  if (record.state === 'undone') {
    const by = record.undoneBy === undefined ? undefined : deps.activity.seqOfUndo(record.undoneBy);
    throw new Error(`activity ${seq} was already undone${by === undefined ? '' : ` (activity ${by})`}`);
  }
  return record;
}

/**
 * `activity.undo {seq, force}`: takes back the write activity row `seq` kept (`Database.restoreRows`),
 * unless a row changed since (then nothing changes, and the rows that differ are the answer) or `force`.
 * The undo is a write of its own: its rows are kept, its activity row (`undo`, `detail.undo`) makes it
 * reversible in turn, and the original is marked undone.
 */
export function undoCommand(deps: UndoDeps): (params: Record<string, unknown>) => Promise<UndoAnswer> {
  const running = new Set<string>();
  return async (params) => {
    const { seq, force = false } = params;
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) throw new Error('seq must be the activity row number of a write');
    if (typeof force !== 'boolean') throw new Error('force must be true or false');
    const record = keptWriteOf(deps, seq);
    if (running.has(record.id)) throw new Error(`an undo of activity ${seq} is running`);
    running.add(record.id);
    try {
      return await takeBack(deps, seq, record, force);
    } finally {
      running.delete(record.id);
    }
  };
}

async function takeBack(deps: UndoDeps, seq: number, record: UndoRecord, force: boolean): Promise<UndoAnswer> {
  const connection = deps.catalog.get(record.connectionId);
  if (!connection) throw new Error(`connection "${record.connectionId}" is gone`);
  if (connectionPlace(connectionOnDatabase(connection, record.database)) !== record.place) {
    throw new Error(`connection "${record.connectionId}" points elsewhere than when the write ran (${record.place}); nothing was undone`);
  }
  const db = deps.catalog.database(connection, record.database);
  if (!db.restoreRows) throw new Error(`${ENGINE_NAMES[db.engine]} connections cannot take a write back`);
  const plan = { verb: record.verb, table: record.table, rows: await deps.undoStore.rows(record.id), force, timeoutMs: RESULTS.defaultTimeoutSeconds * 1000, signal: new AbortController().signal };
  const started = performance.now();
  const entry = { category: 'admin', action: 'undo', connectionId: record.connectionId } as const;
  const restored = await db.restoreRows(plan).catch((error: unknown) => {
    deps.audit({ ...entry, outcome: 'error', durationMs: Math.round(performance.now() - started), error: error instanceof DriverFailure ? error.kind : 'failed', detail: { of: seq } });
    throw error instanceof DriverFailure ? new Error(`the undo failed, nothing changed: ${error.message}`) : error;
  });
  const durationMs = Math.round(performance.now() - started);
  if (!restored.restored) {
    deps.audit({ ...entry, outcome: 'error', durationMs, error: 'rows_changed', detail: { of: seq, differs: restored.differs.length } });
    return { ok: false, columns: plan.rows.columns, keys: plan.rows.keys, differs: restored.differs };
  }
  const where = record.database === undefined ? {} : { database: record.database };
  const undoId = await deps.undoStore.keep({ connectionId: record.connectionId, ...where, place: record.place, table: record.table, verb: restored.verb, undoes: record.id }, restored.kept);
  deps.undoStore.markUndone(record.id, undoId);
  deps.audit({ ...entry, outcome: 'success', durationMs, rows: restored.rowsAffected, detail: { undo: undoId, of: seq, forced: force } });
  return { ok: true, rowsAffected: restored.rowsAffected, undoSeq: deps.activity.seqOfUndo(undoId) };
}
