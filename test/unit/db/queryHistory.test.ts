import { describe, expect, it } from 'vitest';
import { QUERY_HISTORY } from '../../../src/core/contract.js';
import { type HistoryEntry, QueryHistory } from '../../../src/db/results/queryHistory.js';

const entry = (sql: string, extra: Partial<HistoryEntry> = {}): HistoryEntry => ({
  sql,
  statement_kind: 'read',
  executed_at: '2026-01-01T00:00:00.000Z',
  duration_ms: 1,
  row_count: 0,
  outcome: 'success',
  ...extra,
});

describe('QueryHistory', () => {
  it('keeps the newest 200 statements per connection, apart from other connections', () => {
    const history = new QueryHistory();
    expect(history.capacity).toBe(QUERY_HISTORY.perConnection);
    for (let i = 0; i < 250; i += 1) history.record('a', entry(`SELECT ${i}`));
    history.record('b', entry('SELECT b'));
    const kept = history.recent('a', { limit: 1_000 });
    expect(kept).toHaveLength(200);
    expect([kept[0]?.sql, kept.at(-1)?.sql]).toEqual(['SELECT 249', 'SELECT 50']);
    expect(history.recent('b', { limit: 10 }).map((e) => e.sql)).toEqual(['SELECT b']);
    expect(history.recent('c', { limit: 10 })).toEqual([]);
  });

  it('finds statements by text in any case, by kind and by outcome, newest first, up to limit', () => {
    const history = new QueryHistory();
    history.record('a', entry('select * from Books'));
    history.record('a', entry('UPDATE books SET price = 1', { statement_kind: 'write' }));
    history.record('a', entry('SELECT nope FROM books', { outcome: 'error' }));
    history.record('a', entry('SELECT 1'));
    const sql = (filter: Parameters<QueryHistory['recent']>[1]) => history.recent('a', filter).map((e) => e.sql);
    expect(sql({ limit: 10, search: 'FROM BOOKS' })).toEqual(['SELECT nope FROM books', 'select * from Books']);
    expect(sql({ limit: 1, search: 'books' })).toEqual(['SELECT nope FROM books']);
    expect(sql({ limit: 10, kind: 'write' })).toEqual(['UPDATE books SET price = 1']);
    expect(sql({ limit: 10, outcome: 'error' })).toEqual(['SELECT nope FROM books']);
    expect(sql({ limit: 10, search: 'books', kind: 'read', outcome: 'success' })).toEqual(['select * from Books']);
    expect(sql({ limit: 10, kind: 'ddl' })).toEqual([]);
  });
});
