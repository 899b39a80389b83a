import { setup } from 'xstate';

export type ConsentAnswer = 'approved' | 'denied' | 'abandoned';

/** One row a write would change: as it is (null: the write adds it) and as it would be (null: the write deletes it). */
export type RowChange = { before: unknown[] | null; after: unknown[] | null };

/**
 * What a write would change. `exact`: it was tried in a transaction that was rolled back, and changed
 * `rows` rows, the first of them shown (`columns`, `changes`). Otherwise the rows an UPDATE or DELETE
 * would change, counted or the planner's estimate, or why there is no estimate; `notExact` says why it
 * was not tried.
 */
export type EffectPreview = { rows: number; basis: 'exact'; columns: string[]; changes: RowChange[] } | (EffectEstimate & { notExact?: string });

/** The rows an UPDATE or DELETE would change: counted, or the planner's estimate; or why there is no estimate. */
export type EffectEstimate = { rows: number; basis: 'counted' | 'planner' } | { rows: null; reason: string };

/**
 * Whether the write can be taken back once it ran (`sluice undo`, the console's Undo), decided before
 * anyone approves it; when not, why (undo is off, the engine cannot, no key, more rows than it keeps…).
 */
export type UndoOutlook = { possible: true } | { possible: false; why: string };

/** The file `export_data` would write: its path, its format, and whether it replaces one that exists. */
export type ExportDestination = { path: string; format: string; replaces: boolean };

/** The rows `insert_rows` would add to `table`: the first `shown` of `total`. */
export type RowsPreview = { table: string; columns: string[]; shown: unknown[][]; total: number };

/** A blocked write's confirmation dialog: what the user sees, and who waits for the answer. */
export type ConsentInput = {
  id: string;
  principalId: string;
  /** The name the client declared (`clientNameDeclared`), else its token's name. */
  clientName: string;
  clientNameDeclared: boolean;
  tokenName: string;
  tokenLevel: string;
  connectionId: string;
  connectionName: string;
  engine: string;
  /** The database on the server, or the SQLite file's path. */
  database: string;
  tool: string;
  statementKind: string;
  /** Why it is of that kind, in the classifier's words (`DELETE without WHERE changes every row`). */
  statementReason: string;
  /** Shown to the user in full; never sent to the inspector. */
  statement: string;
  /** The values bound to its placeholders, in order; never sent to the inspector. */
  params: unknown[];
  /** How the statement marks them: `$1` (numbered) or `?` in order (positional, shown as `?1`). */
  placeholders: 'numbered' | 'positional';
  /** For an INSERT, UPDATE or DELETE, what it would change; null for any other statement. */
  effect: EffectPreview | null;
  /** For a statement run through the write path, whether it can be undone; null for anything else (an export). */
  undo: UndoOutlook | null;
  /** `export_data`: the file the statement's rows would be written to. */
  destination?: ExportDestination;
  /** `insert_rows`: the rows it would add, the first of them shown; never sent to the inspector. */
  rows?: RowsPreview;
  createdAt: number;
  settle: (answer: ConsentAnswer) => void;
};

/**
 * The confirmation dialog of a write from a client that cannot ask its user (no `elicitation`): asking
 * until the user approves or denies it, or the request it belongs to ends (cancelled, revoked, past its
 * deadline, disconnected) and the dialog is abandoned.
 */
export const consentMachine = setup({
  types: {
    input: {} as ConsentInput,
    context: {} as ConsentInput,
    events: {} as { type: 'approve' } | { type: 'deny' } | { type: 'abandon' },
  },
}).createMachine({
  id: 'consent',
  context: ({ input }) => input,
  initial: 'asking',
  states: {
    asking: { on: { approve: 'approved', deny: 'denied', abandon: 'abandoned' } },
    approved: { type: 'final', entry: ({ context }) => context.settle('approved') },
    denied: { type: 'final', entry: ({ context }) => context.settle('denied') },
    abandoned: { type: 'final', entry: ({ context }) => context.settle('abandoned') },
  },
});
