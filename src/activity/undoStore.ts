import { randomBytes } from 'node:crypto';
import { chmodSync, createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { removeStaleTempFiles, writeFileAtomic, writeFileAtomicPieces } from '../core/atomicFile.js';
import { DAY_MS } from '../core/clock.js';
import { APPLICATION } from '../core/contract.js';
import { nextTurn } from '../core/nextTurn.js';
import type { ExactValue, KeptRows, KeptVerb } from '../db/keptWrites.js';

export const UNDO_DIR = 'undo';

/** One kept write: what it changed and where, and whether it was taken back. Its rows are in a file beside it. */
export type UndoRecord = {
  id: string;
  connectionId: string;
  /** The database of the connection's server it ran on (PostgreSQL, MySQL); absent for a file. */
  database?: string;
  /** Where it ran (db/connections/connectionPlace.ts): an undo runs there or nowhere. */
  place: string;
  table: { schema: string; name: string };
  verb: KeptVerb;
  /** Rows kept: before-images (UPDATE, DELETE), after-images (INSERT, UPDATE); an absent side (an undo's UPDATE) is not counted. */
  rows: number;
  /** ISO 8601, UTC. */
  time: string;
  state: 'kept' | 'undone';
  /** The undo that took it back (its own record's id). */
  undoneBy?: string;
  /** When it is itself an undo: the record of the write it took back. */
  undoes?: string;
};

/** The kept write an activity row names (`detail.undo`), if any. */
export function undoIdOf(row: { detail: string | null }): string | undefined {
  if (row.detail === null) return undefined;
  const detail = JSON.parse(row.detail) as Record<string, unknown>;
  return typeof detail.undo === 'string' ? detail.undo : undefined;
}

/** An activity row with whether its write can still be undone (`undo`: null for rows that kept nothing). */
export const withUndoState = <R extends { detail: string | null }>(row: R, store: Pick<UndoStore, 'state'>): R & { undo: UndoState } => {
  const id = undoIdOf(row);
  return { ...row, undo: id === undefined ? null : store.state(id) };
};

/** What an activity row shows of its write's undo: it can be taken back, it was, or there is nothing to take back (none kept, or pruned). */
export type UndoState = 'available' | 'done' | null;

const ID = /^[0-9a-f]{16}$/;
/** Characters of rows serialised between two turns of the event loop (a row is never split). */
const CHARS_PER_SLICE = 256 * 1024;

/** The rows file: a line of the columns and keys, then one line per row, `["b", row]` before and `["a", row]` after. */
async function* rowLines(rows: KeptRows): AsyncGenerator<string> {
  yield `${JSON.stringify({ columns: rows.columns, keys: rows.keys })}\n`;
  let piece = '';
  for (const [side, list] of [['b', rows.before], ['a', rows.after]] as const) {
    for (const row of list) {
      piece += `${JSON.stringify([side, row])}\n`;
      if (piece.length < CHARS_PER_SLICE) continue;
      yield piece;
      piece = '';
      await nextTurn();
    }
  }
  if (piece !== '') yield piece;
}

/**
 * The kept rows of approved writes, so that a person can take one back (`sluice undo`, the console's
 * Undo): one record and one rows file per write under `<support dir>/undo/` (directory 0700, files
 * 0600, each written atomically), pruned with the activity log's rows. Activity rows name a record by
 * its id (`detail.undo`).
 */
export class UndoStore {
  readonly #dir: string;
  readonly #now: () => number;

  private constructor(dir: string, now: () => number) {
    this.#dir = dir;
    this.#now = now;
  }

  /**
   * Opens `<dataDir>/undo` (made 0700 on the first write kept), tightens its mode, and prunes what is
   * past retention; `retentionDays` is the activity log's.
   */
  static open(dataDir: string, options: { now?: () => number; retentionDays?: number } = {}): UndoStore {
    const dir = join(dataDir, UNDO_DIR);
    const store = new UndoStore(dir, options.now ?? Date.now);
    if (existsSync(dir)) {
      chmodSync(dir, 0o700);
      removeStaleTempFiles(dir);
      store.#prune(options.retentionDays ?? APPLICATION.activityRetentionDays);
    }
    return store;
  }

  /** The store as a reader outside the application sees it (`sluice activity`): nothing created, pruned or cleaned. */
  static reader(dataDir: string): Pick<UndoStore, 'get' | 'state'> {
    return new UndoStore(join(dataDir, UNDO_DIR), Date.now);
  }

  /** Keeps one write's rows; answers the record's id. The rows file is written before its record, so a record always has its rows. */
  async keep(write: Omit<UndoRecord, 'id' | 'rows' | 'time' | 'state'>, rows: KeptRows): Promise<string> {
    const id = randomBytes(8).toString('hex');
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    await writeFileAtomicPieces(this.#rowsPath(id), rowLines(rows));
    const record: UndoRecord = { ...write, id, rows: [...rows.before, ...rows.after].filter((row) => row !== null).length, time: new Date(this.#now()).toISOString(), state: 'kept' };
    writeFileAtomic(this.#recordPath(id), `${JSON.stringify(record)}\n`);
    return id;
  }

  /** The record `id` names, or undefined (an id of another form, pruned, never kept). */
  get(id: string): UndoRecord | undefined {
    if (!ID.test(id) || !existsSync(this.#recordPath(id))) return undefined;
    return JSON.parse(readFileSync(this.#recordPath(id), 'utf8')) as UndoRecord;
  }

  /** What an activity row shows for the record `id`. */
  state(id: string): UndoState {
    const record = this.get(id);
    return record === undefined ? null : record.state === 'kept' ? 'available' : 'done';
  }

  /** The rows the record `id` kept, read a line at a time. */
  async rows(id: string): Promise<KeptRows> {
    if (!ID.test(id)) throw new Error(`no kept write ${id}`);
    const lines = createInterface({ input: createReadStream(this.#rowsPath(id), 'utf8'), crlfDelay: Infinity });
    let head: { columns: string[]; keys: number[] } | undefined;
    const before: KeptRows['before'] = [];
    const after: KeptRows['after'] = [];
    for await (const line of lines) {
      if (line === '') continue;
      if (!head) head = JSON.parse(line) as { columns: string[]; keys: number[] };
      else {
        const [side, row] = JSON.parse(line) as ['b' | 'a', ExactValue[] | null];
        (side === 'b' ? before : after).push(row);
      }
    }
    if (!head) throw new Error(`the rows of kept write ${id} are empty`);
    return { columns: head.columns, keys: head.keys, before, after };
  }

  /** Marks the record `id` taken back by the undo `by`. */
  markUndone(id: string, by: string): void {
    const record = this.get(id);
    if (!record) throw new Error(`no kept write ${id}`);
    writeFileAtomic(this.#recordPath(id), `${JSON.stringify({ ...record, state: 'undone', undoneBy: by } satisfies UndoRecord)}\n`);
  }

  #recordPath = (id: string) => join(this.#dir, `${id}.json`);
  #rowsPath = (id: string) => join(this.#dir, `${id}.rows`);

  /** Removes records older than retention with their rows, and rows files whose record was never written (a write stopped between the two). */
  #prune(retentionDays: number): void {
    const cutoff = new Date(this.#now() - retentionDays * DAY_MS).toISOString();
    const names = new Set(readdirSync(this.#dir));
    for (const name of names) {
      const id = name.replace(/\.(json|rows)$/, '');
      if (!ID.test(id)) continue;
      const record = name.endsWith('.json') ? this.#readable(id) : undefined;
      const orphan = name.endsWith('.rows') && !names.has(`${id}.json`);
      if (orphan || (record && record.time < cutoff) || (name.endsWith('.json') && !record)) {
        rmSync(this.#recordPath(id), { force: true });
        rmSync(this.#rowsPath(id), { force: true });
      }
    }
  }

  #readable(id: string): UndoRecord | undefined {
    try {
      return this.get(id);
    } catch {
      return undefined;
    }
  }
}
