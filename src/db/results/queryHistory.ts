import { QUERY_HISTORY } from '../../core/contract.js';
import type { StatementKind } from '../../sql/classify.js';

/** The values a history read may filter on. */
export const HISTORY_KINDS = ['read', 'write', 'ddl', 'destructive'] as const satisfies readonly StatementKind[];
export const HISTORY_OUTCOMES = ['success', 'error'] as const;

export type HistoryOutcome = (typeof HISTORY_OUTCOMES)[number];

export type HistoryEntry = {
  sql: string;
  statement_kind: StatementKind;
  executed_at: string;
  duration_ms: number;
  row_count: number;
  outcome: HistoryOutcome;
};

/** Which entries a read wants: the newest `limit` whose text contains `search` (any case), of a kind and outcome. */
export type HistoryFilter = {
  limit: number;
  search?: string;
  kind?: StatementKind;
  outcome?: HistoryOutcome;
};

/**
 * The statements run through Sluice on each connection, newest first, for the `history` resource.
 * Kept in memory only (statement text is never written to disk or to logs), at most `capacity` each.
 */
export class QueryHistory {
  readonly #entries = new Map<string, HistoryEntry[]>();

  constructor(readonly capacity = QUERY_HISTORY.perConnection) {}

  record(connectionId: string, entry: HistoryEntry): void {
    const list = this.#entries.get(connectionId) ?? [];
    list.unshift(entry);
    if (list.length > this.capacity) list.length = this.capacity;
    this.#entries.set(connectionId, list);
  }

  /** The newest entries that pass `filter`, each statement's text as `shown` makes it (searched as shown). */
  recent(connectionId: string, { limit, search, kind, outcome }: HistoryFilter, shown: (sql: string) => string = (sql) => sql): HistoryEntry[] {
    const needle = search?.toLowerCase();
    const matches = (e: HistoryEntry) =>
      (!needle || e.sql.toLowerCase().includes(needle)) &&
      (!kind || e.statement_kind === kind) &&
      (!outcome || e.outcome === outcome);
    const found: HistoryEntry[] = [];
    for (const entry of this.#entries.get(connectionId) ?? []) {
      if (found.length >= limit) break;
      const seen = { ...entry, sql: shown(entry.sql) };
      if (matches(seen)) found.push(seen);
    }
    return found;
  }
}
