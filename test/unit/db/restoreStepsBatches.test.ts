import { describe, expect, it } from 'vitest';
import type { KeptSession } from '../../../src/db/keepSteps.js';
import type { ExactValue } from '../../../src/db/keptWrites.js';
import { restoreSteps, type RestoreStepsPlan } from '../../../src/db/restoreSteps.js';

type Row = ExactValue[];

/**
 * A table of (id, v) keyed by id behind a session that runs the undo's statements by name, each bound
 * as restoreSteps binds it: READ (rows by 2 keys), SET1/SETN (set back 1 / 2 rows: v then id), PUT1/PUTN
 * (insert 1 / 2 rows), DEL1. It records the statements it ran, reads left out.
 */
function tableSession(rows: Row[]) {
  const table = new Map(rows.map((row) => [String(row[0]), row]));
  const ran: string[] = [];
  const apply = (sql: string, params: ExactValue[]): number => {
    const width = sql.startsWith('DEL') ? 1 : 2;
    let changed = 0;
    for (let at = 0; at < params.length; at += width) {
      const [a, b] = params.slice(at, at + width);
      if (sql.startsWith('SET') && table.has(String(b))) table.set(String(b), [b ?? null, a ?? null]);
      else if (sql.startsWith('PUT') && !table.has(String(a))) table.set(String(a), [a ?? null, b ?? null]);
      else if (!(sql.startsWith('DEL') && table.delete(String(a)))) throw new Error(`${sql} found no row for ${JSON.stringify([a, b])}`);
      changed++;
    }
    return changed;
  };
  const session: KeptSession = {
    exact: async (sql, params) => {
      if (sql === 'READ') return { rows: [...new Set(params.map(String))].flatMap((id) => (table.has(id) ? [table.get(id)!] : [])), rowsAffected: 0, over: false };
      ran.push(sql);
      return { rows: [], rowsAffected: apply(sql, params as ExactValue[]), over: false };
    },
    write: () => Promise.reject(new Error('an undo runs no approved statement')),
    bind: (value) => value,
  };
  return { table, ran, session };
}

const plan = (many: boolean, before: Row[], after: Row[]): RestoreStepsPlan => ({
  verb: 'UPDATE',
  rows: { columns: ['id', 'v'], keys: [0], before, after },
  force: true,
  current: { sql: 'READ', batch: 2 },
  remove: 'DEL1',
  put: 'PUT1',
  setBack: 'SET1',
  ...(many ? { many: { setBack: 'SETN', put: 'PUTN', batch: 2 } } : {}),
});

const before: Row[] = [1, 2, 3, 4, 5].map((id) => [String(id), `was ${id}`]);
const after: Row[] = [1, 2, 3, 4, 5].map((id) => [String(id), `now ${id}`]);

/** restoreSteps.js: rows set back or put a batch at a time where the engine needs it (DuckDB), in the order they came. */
describe('an undo in batches', () => {
  it('sets back and puts rows a full batch of one kind at a time, the rest one statement each, in the order they came', async () => {
    // Row 3 is gone since the write: forced, it is put back between rows set back.
    const { table, ran, session } = tableSession(after.filter((row) => row[0] !== '3'));
    const restored = await restoreSteps(plan(true, before, after), session);
    expect(ran).toEqual(['SETN', 'PUT1', 'SETN']);
    expect([...table.values()].sort()).toEqual(before);
    expect(restored).toMatchObject({ restored: true, rowsAffected: 5, verb: 'UPDATE' });
  });

  it('runs one statement a row without batches, to the same rows', async () => {
    const { table, ran, session } = tableSession(after.filter((row) => row[0] !== '3'));
    const restored = await restoreSteps(plan(false, before, after), session);
    expect(ran).toEqual(['SET1', 'SET1', 'PUT1', 'SET1', 'SET1']);
    expect([...table.values()].sort()).toEqual(before);
    expect(restored).toMatchObject({ restored: true, rowsAffected: 5, verb: 'UPDATE' });
  });

  it('puts the rows of a DELETE back in batches, the last short one row at a time', async () => {
    const { table, ran, session } = tableSession([]);
    const restored = await restoreSteps({ ...plan(true, before, []), verb: 'DELETE' }, session);
    expect(ran).toEqual(['PUTN', 'PUTN', 'PUT1']);
    expect([...table.values()].sort()).toEqual(before);
    expect(restored).toMatchObject({ restored: true, rowsAffected: 5, verb: 'INSERT' });
  });
});
