import type { StatementKind } from './classify.js';

export type HistoryEntry = {
  sql: string;
  statement_kind: StatementKind;
  executed_at: string;
  duration_ms: number;
  row_count: number;
  outcome: 'success' | 'error';
};

/**
 * The statements run through Sluice on each connection, newest first, for the `history` resource.
 * Kept in memory only (statement text is never written to disk or to logs), at most `capacity` each.
 */
export class QueryHistory {
  readonly #entries = new Map<string, HistoryEntry[]>();

  constructor(readonly capacity = 200) {}

  record(connectionId: string, entry: HistoryEntry): void {
    const list = this.#entries.get(connectionId) ?? [];
    list.unshift(entry);
    if (list.length > this.capacity) list.length = this.capacity;
    this.#entries.set(connectionId, list);
  }

  recent(connectionId: string, limit: number, search?: string): HistoryEntry[] {
    const needle = search?.toLowerCase();
    const list = this.#entries.get(connectionId) ?? [];
    return (needle ? list.filter((e) => e.sql.toLowerCase().includes(needle)) : list).slice(0, limit);
  }
}
